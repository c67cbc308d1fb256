// SPDX-License-Identifier: MIT
// The processes of an MPI job (`mpirun -np R rsim run ...`): this process's rank, their count,
// and the few collectives a batch spread over ranks needs (pipeline/run_batch.cpp). MPI is
// initialised only when the process was started by an MPI launcher (mpirun, srun with PMI/PMIx)
// and rsim was built with MPI (RSIM_HAVE_MPI); otherwise this is one rank and every collective
// is a copy.
#pragma once
#include <string>
#include <vector>

namespace rsim {

class Ranks {
public:
    // The job's ranks (MPI initialised on the first call when launched by MPI).
    static Ranks& world();
    int rank() const { return rank_; }
    int size() const { return size_; }
    bool many() const { return size_ > 1; }

    void barrier() const;
    // `bytes` of rank `root`, on every rank.
    std::string broadcast(const std::string& bytes, int root = 0) const;
    // Every rank's `bytes`, in rank order, on `root` (the others get an empty list).
    std::vector<std::string> gather(const std::string& bytes, int root = 0) const;
    // Ends every rank of the job with `exitCode` (MPI_Abort); returns only with one rank.
    void abortAll(int exitCode) const;

private:
    Ranks();
    int rank_ = 0, size_ = 1;
    bool mpi_ = false;
};

// True when this binary was built with MPI.
bool builtWithMpi();

} // namespace rsim
