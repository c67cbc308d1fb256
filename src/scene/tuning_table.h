// SPDX-License-Identifier: MIT
// Reading the [tuning] table (scene/tuning.h) with the scene file's checks.
#pragma once
#include <string>

#include <toml++/toml.h>

#include "scene/toml_reader.h"
#include "scene/tuning.h"

namespace rsim {

// Every key of `table` checked for type and range like the rest of the scene file; an unknown
// key is an error with a did-you-mean.
TuningDesc readTuningTable(const toml::table& table, const std::string& fileName, const toml_reader::OverrideOrigins* origins);

} // namespace rsim
