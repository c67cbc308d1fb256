#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs this machine's Python 3.11 (interpreter, the standard library without its tests and GUI
# parts), Debian's numpy and the build's `import rsim` (build/python) into DIR.tgz, to run the
# module on a GPU machine whose own Python is another version (the module is built for 3.11).
# The libraries that Python and numpy link come along; the C runtime does not, nor rsim's own:
# unpack it beside the rsim bundle of scripts/make-bundle.sh, whose lib/ the module uses.
#
#   scripts/make-python-bundle.sh [DIR]     (default: dist/rsim-python; writes DIR.tgz)
# On the GPU machine, after unpacking both into the same folder:
#   rsim-python/python3 -c "import rsim; print(rsim.devices())"
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist/rsim-python}
[[ -f build/python/rsim/__init__.py ]] || { echo "make-python-bundle: build first (build/python/rsim)"; exit 2; }
py=/usr/bin/python3.11
stdlib=/usr/lib/python3.11
rm -rf "$out" "$out.tgz"
mkdir -p "$out/bin" "$out/lib" "$out/site"
cp -L "$py" "$out/bin/python3.11"
# The standard library, less what a batch script never imports.
tar cf - -C "$(dirname "$stdlib")" --exclude='python3.11/test' --exclude='python3.11/idlelib' \
  --exclude='python3.11/tkinter' --exclude='python3.11/turtledemo' --exclude='python3.11/ensurepip' \
  --exclude='python3.11/lib2to3' --exclude='python3.11/config-3.11-*' --exclude='__pycache__' \
  --exclude='python3.11/site-packages' --exclude='python3.11/dist-packages' --exclude='python3.11/distutils' \
  --exclude='python3.11/pydoc_data' --exclude='lib-dynload/_tkinter*' --exclude='lib-dynload/_curses*' \
  --exclude='lib-dynload/_dbm*' --exclude='lib-dynload/_gdbm*' --exclude='lib-dynload/readline*' python3.11 |
  tar xf - -C "$out/lib"
cp -rL /usr/lib/python3/dist-packages/numpy "$out/site/"
find "$out/site" -name __pycache__ -prune -exec rm -rf {} +
rm -rf "$out/site/numpy/tests" "$out/site/numpy/"*/tests
cp -rL build/python/rsim "$out/site/"
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so)'
{ ldd "$out/bin/python3.11"; find "$out/lib/python3.11/lib-dynload" "$out/site/numpy" -name '*.so' -exec ldd {} \; ; } |
  awk '/=> \// {print $1, $3}' | sort -u | while read -r name path; do
    [[ $name =~ $skip || -e $out/lib/$name ]] || cp -L "$path" "$out/lib/$name"
  done
cat > "$out/python3" <<'WRAP'
#!/usr/bin/env bash
# The bundled Python with numpy and rsim; rsim's libraries from ../rsim-bundle/lib.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
           /etc/vulkan/icd.d/nvidia_icd.json; do
  if [[ -z ${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-} && -f $icd ]]; then export VK_DRIVER_FILES=$icd; fi
done
[[ -d $here/../rsim-bundle/lib ]] || { echo "rsim-python: unpack rsim-bundle.tgz beside it" >&2; exit 2; }
libs=$here/lib:$here/../rsim-bundle/lib
PYTHONHOME=$here PYTHONPATH=$here/site LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  exec "$here/bin/python3.11" "$@"
WRAP
chmod +x "$out/python3"
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")"
du -sh "$out.tgz" | awk '{print "python bundle:", $2, $1}'
