// Deflate speed on the series of a timeseries.h5 (argv[1]) in 1 MiB chunks shuffled as HDF5 stores them:
// libdeflate level 1 against ISA-L igzip levels 0-2 (zlib format, checked by zlib's uncompress).
// g++ -O2 isal-vs-libdeflate.cpp -I/usr/include/hdf5/serial -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5 -lisal -ldeflate -lz
#include <hdf5.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
#include <string>
static std::vector<float> readDs(const char* file, const char* name) {
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT); hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hid_t s = H5Dget_space(d); std::vector<float> v(H5Sget_simple_extent_npoints(s));
    H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); H5Sclose(s); H5Dclose(d); H5Fclose(f); return v;
}
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
    for (const char* name : {"B", "Z", "E", "R"}) {
        auto v = readDs(argv[1], name);
        const size_t chunk = 262144; // 1 MiB of floats
        size_t nch = (v.size() + chunk - 1) / chunk; v.resize(nch * chunk, 0.0f);
        std::vector<unsigned char> sh(chunk * 4), out(chunk * 8), back(chunk * 4);
        auto shuffle = [&](size_t c) { const auto* b = reinterpret_cast<const unsigned char*>(v.data() + c * chunk); for (size_t e = 0; e < chunk; ++e) for (int j = 0; j < 4; ++j) sh[j * chunk + e] = b[e * 4 + j]; };
        // libdeflate 1
        { auto* c = libdeflate_alloc_compressor(1); size_t tot = 0; double t = 0;
          for (size_t k = 0; k < nch; ++k) { shuffle(k); double t0 = now(); tot += libdeflate_zlib_compress(c, sh.data(), sh.size(), out.data(), out.size()); t += now() - t0; }
          printf("%s libdeflate-1: %.0f MB/s ratio %.2f\n", name, nch * chunk * 4 / t / 1e6, double(nch * chunk * 4) / tot); libdeflate_free_compressor(c); }
        for (int level : {0, 1, 2}) {
            std::vector<unsigned char> lvl(level == 0 ? ISAL_DEF_LVL0_DEFAULT : level == 1 ? ISAL_DEF_LVL1_DEFAULT : ISAL_DEF_LVL2_DEFAULT);
            size_t tot = 0; double t = 0; bool ok = true;
            for (size_t k = 0; k < nch; ++k) {
                shuffle(k);
                double t0 = now();
                isal_zstream s; isal_deflate_stateless_init(&s);
                s.level = level; s.level_buf = lvl.data(); s.level_buf_size = lvl.size();
                s.gzip_flag = IGZIP_ZLIB; s.end_of_stream = 1; s.flush = NO_FLUSH;
                s.next_in = sh.data(); s.avail_in = sh.size(); s.next_out = out.data(); s.avail_out = out.size();
                int rc = isal_deflate_stateless(&s);
                t += now() - t0;
                if (rc != COMP_OK) { printf("rc %d\n", rc); ok = false; break; }
                size_t sz = s.total_out; tot += sz;
                uLongf bl = back.size(); if (uncompress(back.data(), &bl, out.data(), sz) != Z_OK || bl != sh.size() || memcmp(back.data(), sh.data(), bl)) ok = false;
            }
            printf("%s isal-%d: %.0f MB/s ratio %.2f %s\n", name, level, nch * chunk * 4 / t / 1e6, double(nch * chunk * 4) / tot, ok ? "zlib-ok" : "BAD");
        }
    }
}
