# SPDX-License-Identifier: MIT
"""A distorted camera's rays through OpenCV's lens model, written here in numpy (issue 60): a wall
perpendicular to the optical axis at D; each pixel (u, v) is undistorted by Newton's method on
OpenCV's forward model (independent of rsim's fixed-point iteration), and the range of the wall
along that ray, D sqrt(1 + x^2 + y^2), must be rsim's range_true_m."""
import subprocess

import h5py
import numpy as np

K = [50.0, 52.0, 31.2, 24.1]  # fx, fy, cx, cy (pixel centres at integers)
DIST = [-0.25, 0.08, 0.001, -0.002, 0.01]  # k1, k2, p1, p2, k3
D = 3.0


def distort(x, y):
    k1, k2, p1, p2, k3 = DIST
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    return (x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x),
            y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y)


def undistort(xd, yd):
    """Newton's method on distort(x, y) = (xd, yd), with a numerical Jacobian."""
    x, y = xd.copy(), yd.copy()
    h = 1e-7
    for _ in range(50):
        fx, fy = distort(x, y)
        ex, ey = fx - xd, fy - yd
        ax, ay = distort(x + h, y)
        bx, by = distort(x, y + h)
        j11, j21, j12, j22 = (ax - fx) / h, (ay - fy) / h, (bx - fx) / h, (by - fy) / h
        det = j11 * j22 - j12 * j21
        x, y = x - (j22 * ex - j12 * ey) / det, y - (-j21 * ex + j11 * ey) / det
    return x, y


def test_distorted_rays_reproject_through_opencvs_model(rsim_binary, tmp_path):
    # The wall x = D, 40 m wide, its front towards the camera at the origin.
    (tmp_path / "wall.obj").write_text(f"v {D} -20 -20\nv {D} 20 -20\nv {D} 20 20\nv {D} -20 20\nf 1 3 2\nf 1 4 3\n")
    (tmp_path / "scene.toml").write_text(
        "[simulation]\ntimesteps = 1000\nsamples = 2\nindirect = false\nmax_edge_m = 2.0\n"
        "[light]\nposition = [0.0, 0.0, 0.0]\n"
        "[sensor]\nlook_at = [1.0, 0.0, 0.0]\nup = [0.0, 0.0, 1.0]\nresolution = [64, 48]\n"
        f"intrinsics = {K}\ndistortion = {DIST}\n"
        '[[material]]\nname = "default"\nreflectance = 0.5\n[[mesh]]\npath = "wall.obj"\n')
    subprocess.run([rsim_binary, "run", str(tmp_path / "scene.toml"), "--backend", "cpu", "--no-k-cache", "-q",
                    "-o", str(tmp_path / "out")], check=True)
    with h5py.File(tmp_path / "out" / "images.h5") as f:
        rng = f["range_true_m"][()]
        # The coefficients as simulated: in fp32.
        np.testing.assert_allclose(f["camera/distortion"][()], DIST, rtol=1e-7)
        cam = f["camera/K"][()]
    np.testing.assert_allclose([cam[0, 0], cam[1, 1], cam[0, 2], cam[1, 2]], K)
    v, u = np.mgrid[0:rng.shape[0], 0:rng.shape[1]].astype(np.float64)
    xd, yd = (u - K[2]) / K[0], (v - K[3]) / K[1]
    x, y = undistort(xd, yd)
    fx, fy = distort(x, y)
    assert np.abs(fx - xd).max() < 1e-9 and np.abs(fy - yd).max() < 1e-9  # Newton converged
    expected = D * np.sqrt(1 + x * x + y * y)
    assert np.isfinite(rng).all()
    # fp32 rays and hit distances: a few parts in a million of the range.
    assert np.abs(rng - expected).max() < 1e-4 * D, np.abs(rng - expected).max()
