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

// Set by Open MPI's mpirun, by MPICH's and Slurm's PMI, and by PMIx launchers.
bool startedByMpiLauncher() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(v)) return true;
    return false;
}

namespace {

#ifdef RSIM_HAVE_MPI
// Open MPI on one host: its shared-memory transport (pml ob1, btl self and vader) unless the
// user chose one. UCX, which Open MPI prefers where it is built in, took 0.2 s more of every
// job's MPI_Init on one host and moves nothing faster there (docs/benchmarks.md, "Two ranks
// against two devices"). mpirun tells each rank how many of the job's ranks share its host.
void preferSharedMemoryOnOneHost() {
    const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
    const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!size || !local || std::strcmp(size, local) != 0) return;
    if (std::getenv("OMPI_MCA_pml") || std::getenv("OMPI_MCA_btl")) return;
    setenv("OMPI_MCA_pml", "ob1", 0);
    setenv("OMPI_MCA_btl", "self,vader", 0);
}

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
    if (!startedByMpiLauncher()) return;
    preferSharedMemoryOnOneHost();
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
    if (startedByMpiLauncher() && std::getenv("OMPI_COMM_WORLD_SIZE") && std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE")) > 1)
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

#ifdef RSIM_HAVE_MPI
namespace {

// The most bytes one MPI call moves per rank: MPI's counts are int, so every collective below
// sends in pieces of at most this (1 GiB; RSIM_MPI_PIECE_BYTES lowers it, so that tests reach
// the pieces with small scenes).
std::size_t pieceBytes() {
    static const std::size_t bytes = [] {
        const char* v = std::getenv("RSIM_MPI_PIECE_BYTES");
        const long long n = v ? std::atoll(v) : 0;
        return n > 0 ? std::size_t(std::min<long long>(n, 1ll << 30)) : std::size_t(1) << 30;
    }();
    return bytes;
}

// Every rank's count, on every rank.
std::vector<std::uint64_t> allCounts(std::uint64_t mine, int size) {
    std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
    check(MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD), "MPI_Allgather");
    return all;
}

// Every rank's `bytes` on every rank (root < 0), or on `root` only, in rounds of at most
// pieceBytes() / ranks per rank, so that no count or displacement passes INT_MAX.
std::vector<std::string> gatherInPieces(const std::string& bytes, int root, int rank, int size) {
    const std::vector<std::uint64_t> sizes = allCounts(bytes.size(), size);
    const std::size_t R = sizes.size();
    const std::uint64_t cap = std::max<std::uint64_t>(1, pieceBytes() / R);
    std::uint64_t rounds = 0;
    for (std::uint64_t n : sizes) rounds = std::max(rounds, (n + cap - 1) / cap);
    const bool here = root < 0 || root == rank;
    std::vector<std::string> out(here ? R : 0);
    for (std::size_t r = 0; r < out.size(); ++r) out[r].resize(sizes[r]);
    std::vector<int> counts(R), displs(R);
    std::string round;
    for (std::uint64_t k = 0; k < rounds; ++k) {
        int total = 0;
        for (std::size_t r = 0; r < R; ++r) {
            const std::uint64_t at = k * cap;
            counts[r] = int(sizes[r] > at ? std::min(cap, sizes[r] - at) : 0);
            displs[r] = total;
            total += counts[r];
        }
        round.resize(here ? std::size_t(total) : 0);
        const char* send = bytes.data() + std::min<std::uint64_t>(k * cap, bytes.size());
        const int mine = counts[std::size_t(rank)];
        if (root < 0)
            check(MPI_Allgatherv(send, mine, MPI_BYTE, round.data(), counts.data(), displs.data(), MPI_BYTE,
                                 MPI_COMM_WORLD),
                  "MPI_Allgatherv");
        else
            check(MPI_Gatherv(send, mine, MPI_BYTE, round.data(), counts.data(), displs.data(), MPI_BYTE, root,
                              MPI_COMM_WORLD),
                  "MPI_Gatherv");
        for (std::size_t r = 0; r < out.size(); ++r)
            std::memcpy(out[r].data() + k * cap, round.data() + displs[r], std::size_t(counts[r]));
    }
    return out;
}

} // namespace
#endif

std::string Ranks::broadcast(const std::string& bytes, int root) const {
#ifdef RSIM_HAVE_MPI
    if (mpi_) {
        unsigned long long n = bytes.size();
        check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
        std::string out = rank_ == root ? bytes : std::string(n, '\0');
        for (std::size_t at = 0; at < n; at += pieceBytes())
            check(MPI_Bcast(out.data() + at, int(std::min<std::size_t>(pieceBytes(), n - at)), MPI_BYTE, root,
                            MPI_COMM_WORLD),
                  "MPI_Bcast");
        return out;
    }
#else
    (void)root;
#endif
    return bytes;
}

std::vector<std::string> Ranks::gather(const std::string& bytes, int root) const {
#ifdef RSIM_HAVE_MPI
    if (mpi_) return gatherInPieces(bytes, root, rank_, size_);
#else
    (void)root;
#endif
    return {bytes};
}

std::vector<std::string> Ranks::allgather(const std::string& bytes) const {
#ifdef RSIM_HAVE_MPI
    if (mpi_) return gatherInPieces(bytes, -1, rank_, size_);
#endif
    return {bytes};
}

std::vector<std::vector<float>> Ranks::alltoall(std::vector<std::vector<float>> sendTo) const {
    if (sendTo.size() != std::size_t(size_)) throw Error("internal: an alltoall without a part for every rank");
    std::vector<std::vector<float>> out(sendTo.size());
    out[std::size_t(rank_)] = std::move(sendTo[std::size_t(rank_)]);
    std::vector<std::span<const float>> parts(sendTo.begin(), sendTo.end());
    alltoallInto(parts, [&](int r, std::size_t count) {
        out[std::size_t(r)].resize(count);
        return out[std::size_t(r)].data();
    });
    return out;
}

void Ranks::alltoallInto(const std::vector<std::span<const float>>& sendTo,
                         [[maybe_unused]] const std::function<float*(int, std::size_t)>& into) const {
    if (sendTo.size() != std::size_t(size_)) throw Error("internal: an alltoall without a part for every rank");
#ifdef RSIM_HAVE_MPI
    if (mpi_) {
        // Each part goes straight from its vector to where the receiver wants it, in messages of
        // at most pieceBytes() (no packed copy of all parts, no int counts over 2^31).
        const std::size_t R = std::size_t(size_), me = std::size_t(rank_);
        std::vector<std::uint64_t> sendCounts(R), recvCounts(R);
        for (std::size_t r = 0; r < R; ++r) sendCounts[r] = r == me ? 0 : sendTo[r].size();
        check(MPI_Alltoall(sendCounts.data(), 1, MPI_UINT64_T, recvCounts.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD),
              "MPI_Alltoall");
        const std::size_t piece = std::max<std::size_t>(1, pieceBytes() / sizeof(float));
        std::vector<MPI_Request> requests;
        for (std::size_t r = 0; r < R; ++r) {
            if (r == me) continue;
            float* target = into(int(r), recvCounts[r]);
            for (std::size_t at = 0, tag = 0; at < recvCounts[r]; at += piece, ++tag)
                check(MPI_Irecv(target + at, int(std::min<std::size_t>(piece, recvCounts[r] - at)), MPI_FLOAT,
                                int(r), int(tag % 32768), MPI_COMM_WORLD, &requests.emplace_back()),
                      "MPI_Irecv");
        }
        for (std::size_t r = 0; r < R; ++r) {
            if (r == me) continue;
            for (std::size_t at = 0, tag = 0; at < sendCounts[r]; at += piece, ++tag)
                check(MPI_Isend(sendTo[r].data() + at, int(std::min<std::size_t>(piece, sendCounts[r] - at)), MPI_FLOAT,
                                int(r), int(tag % 32768), MPI_COMM_WORLD, &requests.emplace_back()),
                      "MPI_Isend");
        }
        check(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    }
#endif
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
