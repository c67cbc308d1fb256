# SPDX-License-Identifier: MIT
# Type stub of `import rsim` (PEP 561): the signatures of python/rsim/__init__.py and of the
# compiled core it wraps. Arrays are numpy arrays; see the docstrings for their shapes.
import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

PathLike = Union[str, bytes, "os.PathLike[str]"]
Overrides = Union[str, Iterable[str]]
Poses = Union[None, npt.ArrayLike, Sequence[Sequence[float]], Sequence[Mapping[str, Any]]]

class ArgumentTypeError(ValueError, TypeError): ...

class Scene:
    """A scene file (TOML), read and checked."""
    @classmethod
    def load(cls, path: PathLike, set: Overrides = ()) -> "Scene": ...
    @classmethod
    def from_arrays(
        cls,
        vertices: npt.ArrayLike,
        faces: npt.ArrayLike,
        reflectance: Union[float, npt.ArrayLike] = 0.5,
        two_sided: bool = False,
        base: Optional[PathLike] = None,
        set: Overrides = (),
    ) -> "Scene": ...
    @property
    def triangles(self) -> int: ...
    @property
    def timesteps(self) -> int: ...
    @property
    def resolution(self) -> tuple[int, int]: ...
    @property
    def dt_ns(self) -> float: ...
    @property
    def bounds(self) -> npt.NDArray[np.float64]: ...
    @property
    def camera(self) -> dict[str, list[float]]: ...

class Simulator:
    """The pipeline over a scene; one run() at a time (threads wait for each other)."""
    def __init__(
        self,
        scene: Scene,
        backend: str = "auto",
        devices: str = "auto",
        samples: Optional[int] = None,
        k_format: str = "",
        k_cache: bool = True,
        k_cache_dir: Optional[PathLike] = None,
        transport: Optional[str] = None,
    ) -> None: ...
    def run(self, poses: Poses = None, histories: bool = False) -> dict[str, Any]: ...

def devices() -> list[dict[str, Any]]: ...
def read_results(path: PathLike) -> dict[str, Any]: ...
def set_log_level(level: str) -> None: ...
