#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs build/rsim with every shared library it needs (and the Vulkan loader, which rsim opens
# at run time) into DIR.tgz, for a GPU machine that has a driver but not our -dev packages or
# even a Vulkan loader (e.g. a CUDA container on a newer Ubuntu). The C runtime is not packed.
#
#   scripts/make-bundle.sh [DIR]          (default: dist/rsim-bundle; writes DIR.tgz)
#   scripts/make-bundle.sh --with-tests [DIR]
#                                         also the test suite (bin/rsim_tests) and the Khronos
#                                         validation layer (layer/), for scripts/device/gpu-run.sh tests
# On the GPU machine:
#   tar xzf rsim-bundle.tgz && rsim-bundle/rsim devices
#   rsim-bundle/rsim run scene.toml --backend vulkan --output results
set -euo pipefail
cd "$(dirname "$0")/.."
with_tests=0
[[ ${1:-} == --with-tests ]] && { with_tests=1; shift; }
out=${1:-dist/rsim-bundle}
[[ -x build/rsim ]] || scripts/build.sh
rm -rf "$out" "$out.tgz"
mkdir -p "$out/bin" "$out/lib"
# rsim's modules (src/util/modules.h) stay beside the binary, which opens them when it needs them.
cp -L build/rsim build/rsim-*.so "$out/bin/"
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so)'
ldd build/rsim build/rsim-*.so | awk '/=> \// {print $1, $3}' | sort -u | while read -r name path; do
  [[ $name =~ $skip ]] || cp -Ln "$path" "$out/lib/$name"
done
# Opened at run time rather than linked: the Vulkan loader, and glvnd's dispatch libraries,
# which NVIDIA's Vulkan driver (libGLX_nvidia.so.0) needs and CUDA-only images often lack.
for lib in libvulkan.so.1 libGLdispatch.so.0 libGLX.so.0 libEGL.so.1 libOpenGL.so.0; do
  # awk reads to the end: leaving early could end ldconfig with SIGPIPE, and pipefail the script.
  p=$(ldconfig -p | awk -v l="$lib" '$1==l && /x86-64/ && !found {print $NF; found=1}')
  [[ -n $p ]] && cp -Ln "$p" "$out/lib/$lib"
done
cat > "$out/rsim" <<'WRAP'
#!/usr/bin/env bash
# Runs the bundled rsim with its own libraries; finds the NVIDIA Vulkan driver where containers
# usually mount it when no ICD is registered system-wide. Bash builtins only: a subshell and
# dirname cost each run about 4 ms.
here=${BASH_SOURCE[0]%/*}
[[ $here == "${BASH_SOURCE[0]}" ]] && here=.
[[ $here == /* ]] || here=$PWD/$here
for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
           /etc/vulkan/icd.d/nvidia_icd.json; do
  if [[ -z ${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-} && -f $icd ]]; then export VK_DRIVER_FILES=$icd; fi
done
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/rsim" "$@"
WRAP
chmod +x "$out/rsim"
if [[ $with_tests -eq 1 ]]; then
  [[ -x build/tests/rsim_tests ]] || cmake --build build --target rsim_tests
  cp -L build/tests/rsim_tests "$out/bin/" # links the libraries of rsim and its modules
  mkdir -p "$out/layer"
  cp -L /usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so "$out/layer/"
  sed 's#"library_path": *"[^"]*"#"library_path": "./libVkLayer_khronos_validation.so"#' \
    /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json > "$out/layer/VkLayer_khronos_validation.json"
fi
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")"
du -sh "$out.tgz" | awk '{print "bundle:", $2, $1}'
