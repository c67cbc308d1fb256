// SPDX-License-Identifier: MIT
#include "util/ranks.h"

#include <climits>
#include <cstdlib>

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
    check(MPI_Init(nullptr, nullptr), "MPI_Init");
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

void Ranks::abortAll(int exitCode) const {
#ifdef RSIM_HAVE_MPI
    if (mpi_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, exitCode);
#else
    (void)exitCode;
#endif
}

} // namespace rsim
