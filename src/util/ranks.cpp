// SPDX-License-Identifier: MIT
#include "util/ranks.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "util/error.h"

#ifdef RSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace rsim {
namespace {

// Set by Open MPI's mpirun, by MPICH's and Slurm's PMI, and by PMIx launchers.
bool launchedByMpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(v)) return true;
    return false;
}

#ifdef RSIM_HAVE_MPI
void check(int code, const char* what) {
    if (code != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed");
}
void finalizeAtExit() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}
#endif

} // namespace

bool builtWithMpi() {
#ifdef RSIM_HAVE_MPI
    return true;
#else
    return false;
#endif
}

Ranks::Ranks() {
#ifdef RSIM_HAVE_MPI
    if (!launchedByMpi()) return;
    // Worker threads never call MPI; the main thread does while they run (transport/row_exchange.h).
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    std::atexit(finalizeAtExit);
    // Errors return codes (turned into exceptions here) instead of ending the job silently.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    mpi_ = true;
#else
    if (launchedByMpi() && std::getenv("OMPI_COMM_WORLD_SIZE") && std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE")) > 1)
        throw InputError("rsim was started by mpirun with several ranks, but was built without MPI: every rank "
                         "would run the whole job alone. Install libopenmpi-dev and build again (cmake finds it), "
                         "or run one process");
#endif
}

Ranks& Ranks::world() {
    static Ranks ranks;
    return ranks;
}

void Ranks::barrier() const {
#ifdef RSIM_HAVE_MPI
    if (mpi_) check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
#endif
}

std::string Ranks::broadcast(const std::string& bytes, int root) const {
#ifdef RSIM_HAVE_MPI
    if (mpi_) {
        unsigned long long n = bytes.size();
        check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
        if (n > INT_MAX) throw Error("MPI: a broadcast of more than 2 GiB");
        std::string out = rank_ == root ? bytes : std::string(n, '\0');
        check(MPI_Bcast(out.data(), int(n), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
        return out;
    }
#else
    (void)root;
#endif
    return bytes;
}

std::vector<std::string> Ranks::gather(const std::string& bytes, int root) const {
#ifdef RSIM_HAVE_MPI
    if (mpi_) {
        if (bytes.size() > INT_MAX) throw Error("MPI: a rank's part of a gather is over 2 GiB");
        int n = int(bytes.size());
        std::vector<int> counts(rank_ == root ? std::size_t(size_) : 0), displs(counts.size());
        check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Gather");
        long long total = 0;
        for (std::size_t r = 0; r < counts.size(); ++r) {
            displs[r] = int(total);
            total += counts[r];
        }
        if (total > INT_MAX) throw Error("MPI: a gather of more than 2 GiB");
        std::string all(std::size_t(total), '\0');
        check(MPI_Gatherv(bytes.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, root,
                          MPI_COMM_WORLD),
              "MPI_Gatherv");
        std::vector<std::string> out;
        for (std::size_t r = 0; r < counts.size(); ++r) out.push_back(all.substr(std::size_t(displs[r]), std::size_t(counts[r])));
        return out;
    }
#else
    (void)root;
#endif
    return {bytes};
}

std::vector<std::string> Ranks::allgather(const std::string& bytes) const {
#ifdef RSIM_HAVE_MPI
    if (mpi_) {
        if (bytes.size() > INT_MAX) throw Error("MPI: a rank's part of an allgather is over 2 GiB");
        int n = int(bytes.size());
        std::vector<int> counts(static_cast<std::size_t>(size_)), displs(counts.size());
        check(MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
        long long total = 0;
        for (std::size_t r = 0; r < counts.size(); ++r) {
            displs[r] = int(total);
            total += counts[r];
        }
        if (total > INT_MAX) throw Error("MPI: an allgather of more than 2 GiB");
        std::string all(std::size_t(total), '\0');
        check(MPI_Allgatherv(bytes.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                             MPI_COMM_WORLD),
              "MPI_Allgatherv");
        std::vector<std::string> out;
        for (std::size_t r = 0; r < counts.size(); ++r)
            out.push_back(all.substr(std::size_t(displs[r]), std::size_t(counts[r])));
        return out;
    }
#endif
    return {bytes};
}

std::vector<std::vector<float>> Ranks::alltoall(std::vector<std::vector<float>> sendTo) const {
    if (sendTo.size() != std::size_t(size_)) throw Error("internal: an alltoall without a part for every rank");
    std::vector<std::vector<float>> out(sendTo.size());
    out[std::size_t(rank_)] = std::move(sendTo[std::size_t(rank_)]);
#ifdef RSIM_HAVE_MPI
    if (mpi_) {
        const std::size_t R = std::size_t(size_);
        std::vector<int> sendCounts(R), recvCounts(R), sendDispls(R), recvDispls(R);
        long long total = 0;
        for (std::size_t r = 0; r < R; ++r) {
            const std::size_t c = r == std::size_t(rank_) ? 0 : sendTo[r].size();
            if (total + static_cast<long long>(c) > INT_MAX)
                throw Error("MPI: a rank's part of an alltoall is over 2^31 values");
            sendCounts[r] = int(c);
            sendDispls[r] = int(total);
            total += static_cast<long long>(c);
        }
        std::vector<float> send(static_cast<std::size_t>(total));
        for (std::size_t r = 0; r < R; ++r)
            if (sendCounts[r]) std::copy(sendTo[r].begin(), sendTo[r].end(), send.begin() + sendDispls[r]);
        sendTo.clear();
        check(MPI_Alltoall(sendCounts.data(), 1, MPI_INT, recvCounts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall");
        total = 0;
        for (std::size_t r = 0; r < R; ++r) {
            if (total + recvCounts[r] > INT_MAX) throw Error("MPI: an alltoall receiving over 2^31 values");
            recvDispls[r] = int(total);
            total += recvCounts[r];
        }
        std::vector<float> recv(static_cast<std::size_t>(total));
        check(MPI_Alltoallv(send.data(), sendCounts.data(), sendDispls.data(), MPI_FLOAT, recv.data(), recvCounts.data(),
                            recvDispls.data(), MPI_FLOAT, MPI_COMM_WORLD),
              "MPI_Alltoallv");
        for (std::size_t r = 0; r < R; ++r)
            if (r != std::size_t(rank_))
                out[r].assign(recv.begin() + recvDispls[r], recv.begin() + recvDispls[r] + recvCounts[r]);
    }
#endif
    return out;
}

namespace {

enum class Reduce { Sum, Max, Min };

// Every rank's `values` combined element by element, in place, on every rank (with MPI).
template <class T> void reduceOverRanks([[maybe_unused]] bool mpi, [[maybe_unused]] std::vector<T>& values,
                                        [[maybe_unused]] Reduce how) {
#ifdef RSIM_HAVE_MPI
    if (!mpi || values.empty()) return;
    const MPI_Datatype type = std::is_same_v<T, double> ? MPI_DOUBLE : MPI_UINT64_T;
    const MPI_Op op = how == Reduce::Sum ? MPI_SUM : how == Reduce::Max ? MPI_MAX : MPI_MIN;
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), type, op, MPI_COMM_WORLD), "MPI_Allreduce");
#endif
}

} // namespace

void Ranks::sum(std::vector<std::uint64_t>& values) const { reduceOverRanks(mpi_, values, Reduce::Sum); }
void Ranks::sum(std::vector<double>& values) const { reduceOverRanks(mpi_, values, Reduce::Sum); }
void Ranks::max(std::vector<double>& values) const { reduceOverRanks(mpi_, values, Reduce::Max); }
void Ranks::max(std::vector<std::uint64_t>& values) const { reduceOverRanks(mpi_, values, Reduce::Max); }
void Ranks::min(std::vector<std::uint64_t>& values) const { reduceOverRanks(mpi_, values, Reduce::Min); }

struct Ranks::Pending::Impl {
    std::thread::id owner = std::this_thread::get_id();
    bool done = false;
#ifdef RSIM_HAVE_MPI
    MPI_Request request = MPI_REQUEST_NULL;
    std::vector<int> counts, displs;
#endif
};

Ranks::Pending::Pending() = default;
Ranks::Pending::Pending(Pending&&) noexcept = default;
Ranks::Pending& Ranks::Pending::operator=(Pending&&) noexcept = default;

Ranks::Pending::~Pending() {
    // An exchange abandoned by an exception: MPI must not write into freed buffers, and a rank
    // that throws ends the job (main.cpp), so waiting here cannot hang the others for long.
    try {
        if (impl_ && !impl_->done && impl_->owner == std::this_thread::get_id()) wait();
    } catch (...) {
    }
}

void Ranks::Pending::poll() {
    // Other threads return before touching `done`, which the owner writes.
    if (!impl_ || impl_->owner != std::this_thread::get_id() || impl_->done) return;
#ifdef RSIM_HAVE_MPI
    int flag = 0;
    check(MPI_Test(&impl_->request, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    impl_->done = flag != 0;
#endif
}

void Ranks::Pending::wait() {
    if (!impl_ || impl_->done) return;
    if (impl_->owner != std::this_thread::get_id()) throw Error("internal: an MPI exchange waited on by another thread");
#ifdef RSIM_HAVE_MPI
    check(MPI_Wait(&impl_->request, MPI_STATUS_IGNORE), "MPI_Wait");
#endif
    impl_->done = true;
}

Ranks::Pending Ranks::startAllgather(const void* send, std::size_t bytes, void* recv,
                                     const std::vector<std::size_t>& counts) const {
    if (counts.size() != std::size_t(size_) || counts[std::size_t(rank_)] != bytes)
        throw Error("internal: an allgather's counts do not match the ranks");
    Pending p;
    p.impl_ = std::make_unique<Pending::Impl>();
#ifdef RSIM_HAVE_MPI
    if (mpi_) {
        Pending::Impl& x = *p.impl_;
        long long total = 0;
        for (std::size_t c : counts) {
            if (c > INT_MAX || total + static_cast<long long>(c) > INT_MAX) throw Error("MPI: an exchange of more than 2 GiB per step");
            x.counts.push_back(int(c));
            x.displs.push_back(int(total));
            total += static_cast<long long>(c);
        }
        check(MPI_Iallgatherv(send, int(bytes), MPI_BYTE, recv, x.counts.data(), x.displs.data(), MPI_BYTE,
                              MPI_COMM_WORLD, &x.request),
              "MPI_Iallgatherv");
        return p;
    }
#endif
    if (bytes) std::memcpy(recv, send, bytes);
    p.impl_->done = true;
    return p;
}

void Ranks::abortAll(int exitCode) const {
#ifdef RSIM_HAVE_MPI
    if (mpi_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, exitCode);
#else
    (void)exitCode;
#endif
}

} // namespace rsim
