// SPDX-License-Identifier: MIT
#include "util/cancel.h"

namespace rsim {

std::atomic<bool>& cancelFlag() {
    static std::atomic<bool> flag{false};
    return flag;
}

} // namespace rsim
