# SPDX-License-Identifier: MIT
"""Shapes the `import rsim` tests build from arrays."""
import numpy as np


def box():
    """A closed 4 x 3 x 2.5 m box, its triangles facing inwards."""
    corners = np.array([[x, y, z] for x in (0, 4.0) for y in (0, 3.0) for z in (0, 2.5)])
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]  # wound outwards
    faces = np.array([t for a, b, c, d in quads for t in ((a, c, b), (a, d, c))])  # reversed: inwards
    return corners, faces
