// SPDX-License-Identifier: MIT
// The processes of an MPI job (`mpirun -np R rsim run ...`): this process's rank, their count,
// and the collectives that a batch's poses spread over ranks (pipeline/run_batch.cpp) and K's
// rows spread over ranks (k/row_share.h, transport/row_exchange.h) need. MPI is
// initialised only when the process was started by an MPI launcher (mpirun, srun with PMI/PMIx)
// and rsim was built with MPI (RSIM_HAVE_MPI); otherwise this is one rank and every collective
// is a copy.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace rsim {

// Whether an MPI launcher (mpirun, srun with PMI or PMIx) started this process.
bool startedByMpiLauncher();

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
    // Every rank's `bytes`, in rank order, on every rank.
    std::vector<std::string> allgather(const std::string& bytes) const;
    // sendTo[r] goes to rank r; returns what each rank sent to this one (this rank's own entry
    // is moved across). Like every collective here, in messages of at most 1 GiB (MPI's counts
    // are int; RSIM_MPI_PIECE_BYTES lowers the piece for tests), so no part is too large.
    std::vector<std::vector<float>> alltoall(std::vector<std::vector<float>> sendTo) const;
    // The same, what rank r sends received at into(r, count) (count floats; a rank never asks
    // for its own part); the storage stays the caller's (e.g. memory a device copies from).
    void alltoallInto(const std::vector<std::span<const float>>& sendTo,
                      const std::function<float*(int, std::size_t)>& into) const;
    // Each element summed (maximised, minimised) over the ranks, on every rank.
    void sum(std::vector<std::uint64_t>& values) const;
    void sum(std::vector<double>& values) const;
    void max(std::vector<double>& values) const;
    void max(std::vector<std::uint64_t>& values) const;
    void min(std::vector<std::uint64_t>& values) const;

    // A non-blocking allgather (MPI_Iallgatherv): rank r's `counts[r]` bytes land at
    // sum(counts[0..r)) in `recv`, on every rank. `send` and `recv` must outlive it; nothing in
    // `recv` is defined before wait(). MPI is called only from the thread that started it (the
    // library is initialised for that: MPI_THREAD_FUNNELED), so poll() elsewhere does nothing.
    class Pending {
    public:
        Pending();
        Pending(Pending&&) noexcept;
        Pending& operator=(Pending&&) noexcept;
        ~Pending();
        // Lets MPI move the data on (Open MPI progresses a collective only inside MPI calls).
        void poll();
        void wait();
        bool active() const { return impl_ != nullptr; }

    private:
        friend class Ranks;
        struct Impl;
        std::unique_ptr<Impl> impl_;
    };
    Pending startAllgather(const void* send, std::size_t bytes, void* recv, const std::vector<std::size_t>& counts) const;

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
