#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs Debian's Open MPI launcher (mpirun, its components, PMIx and every shared library they
# need) into DIR.tgz, for a GPU machine that has no MPI (the device tool's Ubuntu images), so
# that the bundle of make-bundle.sh (whose rsim links libmpi) can run as several ranks there.
# Open MPI is relocated with OPAL_PREFIX and PMIx by its component path: nothing is
# installed outside DIR. The C runtime is not packed.
#
#   scripts/make-mpi-bundle.sh [DIR]      (default: dist/rsim-mpi; writes DIR.tgz)
# On the GPU machine:
#   tar xzf rsim-mpi.tgz && rsim-mpi/mpirun -np 1 rsim-bundle/rsim run ... --devices 0 : \
#                                          -np 1 rsim-bundle/rsim run ... --devices 1
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist/rsim-mpi}
multiarch=x86_64-linux-gnu
ompi=/usr/lib/$multiarch/openmpi
pmix=/usr/lib/$multiarch/pmix2
[[ -x /usr/bin/orterun && -d $ompi/lib/openmpi3 && -d $pmix/lib/pmix ]] ||
  { echo "make-mpi-bundle: Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev)"; exit 2; }
rm -rf "$out" "$out.tgz"
mkdir -p "$out/bin" "$out/lib" "$out/usr/lib/$multiarch" "$out/usr/share" "$out/etc"
cp -L /usr/bin/orterun /usr/bin/orted "$out/bin/"
cp -a "$ompi" "$pmix" "$out/usr/lib/$multiarch/"
cp -a /usr/share/openmpi "$out/usr/share/"
cp -a /etc/openmpi "$out/etc/"
# Every library the launcher, its daemon and the components load, but the C runtime's.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so)'
for f in "$out"/bin/* $(find "$out/usr/lib" -name '*.so*' -type f); do
  ldd "$f" 2>/dev/null | awk '/=> \// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ $name =~ $skip ]] || cp -Ln "$path" "$out/lib/$name"
done
cat > "$out/mpirun" <<'WRAP'
#!/usr/bin/env bash
# Open MPI's mpirun from this folder: its components, help texts and settings under usr/ and
# etc/ here, its libraries in lib/ (the ranks inherit the environment).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=$here/usr OPAL_SYSCONFDIR=$here/etc/openmpi PMIX_MCA_mca_base_component_path=$here/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$here/bin/orterun" "$@"
WRAP
chmod +x "$out/mpirun"
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")"
du -sh "$out.tgz" | awk '{print "bundle:", $2, $1}'
