# SPDX-License-Identifier: MIT
# Sourced by the device scripts. place_build SRC NAME BUNDLE: another build of rsim beside the
# bundle's own (same libraries), run by the wrapper BUNDLE/NAME (a copy of the bundle's, pointing
# at it). SRC is that build's rsim binary or, for a build with modules (src/util/modules.h, since
# 5490fc0), a folder holding its rsim and its rsim-*.so: those must never meet another build's,
# so the folder goes to BUNDLE/bin/NAME.d/ whole.
place_build() {
  local src=$1 name=$2 bundle=$3 target
  if [[ -d $src ]]; then
    rm -rf "$bundle/bin/$name.d" && cp -r "$src" "$bundle/bin/$name.d" || return 1
    target=$name.d/rsim
  else
    cp "$src" "$bundle/bin/$name" || return 1
    target=$name
  fi
  chmod +x "$bundle/bin/$target" && sed "s#/bin/rsim\"#/bin/$target\"#" "$bundle/rsim" > "$bundle/$name" &&
    chmod +x "$bundle/$name"
}
