"""The Python bindings against numpy (matmul, sum), OpenCV's boxFilter and the
library's own CLI, on every device here (COALESCE_DEVICES narrows them)."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

import coalesce

ctx = coalesce.Context()
# The library calls do not run on Vulkan devices yet (they say so: unsupported).
DEVICES = [d for d in ctx.devices() if not d.startswith("vulkan")
           and (not os.environ.get("COALESCE_DEVICES") or d in os.environ["COALESCE_DEVICES"].split(","))]
rng = np.random.default_rng(5)


def dev(spec):
    return ctx.devices().index(spec)


@pytest.mark.parametrize("spec", DEVICES)
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 5, 3), (33, 65, 17)])
def test_sgemm_matmul(spec, m, n, k):
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = (k + 4) * 2.0 ** -24 * (np.abs(a).astype(np.float64) @ np.abs(b))
    assert np.all(np.abs(ctx.sgemm(dev(spec), a, b) - ref) <= bound)
    # Transposes, alpha/beta, column-major (Fortran arrays).
    c0 = rng.uniform(-1, 1, (m, n)).astype(np.float32)
    c = ctx.sgemm(dev(spec), np.ascontiguousarray(a.T), b, c=c0.copy(), alpha=0.5, beta=-2,
                  trans_a=True)
    assert np.allclose(c, 0.5 * ref - 2 * c0, atol=1e-5)
    cf = ctx.sgemm(dev(spec), np.asfortranarray(a), np.asfortranarray(b))
    assert cf.flags.f_contiguous and np.allclose(cf, ref, atol=1e-5)


@pytest.mark.parametrize("spec", DEVICES)
@pytest.mark.parametrize("n", [1, 3, 1023, 100003])
def test_sum_and_copy(spec, n):
    x = rng.uniform(-1, 1, n).astype(np.float32)
    ref = np.sum(x, dtype=np.float64)
    bound = (np.ceil(np.log2(n)) + 2) * 2.0 ** -24 * np.sum(np.abs(x), dtype=np.float64)
    assert abs(ctx.reduce_sum(dev(spec), x) - ref) <= bound
    buf = ctx.buffer(dev(spec), x)
    assert abs(ctx.reduce_sum(dev(spec), buf) - ref) <= bound
    assert np.array_equal(ctx.copy(dev(spec), buf), x)


CV_BORDERS = {"clamp": "BORDER_REPLICATE", "reflect101": "BORDER_REFLECT_101",
              "zero": "BORDER_CONSTANT"}


@pytest.mark.parametrize("spec", DEVICES)
@pytest.mark.parametrize("border", list(CV_BORDERS))
@pytest.mark.parametrize("w,h,r", [(1, 1, 0), (31, 17, 2), (64, 9, 5)])
def test_boxfilter_opencv(spec, border, w, h, r):
    cv2 = pytest.importorskip("cv2")
    img = rng.uniform(0, 1, (h, w)).astype(np.float32)
    bt = getattr(cv2, CV_BORDERS[border])
    ref = cv2.boxFilter(img, -1, (2 * r + 1, 2 * r + 1), normalize=True, borderType=bt)
    got = ctx.boxfilter(dev(spec), img, r, border)
    assert np.allclose(got, ref, rtol=1e-4, atol=1e-5)
    rgba = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    ref8 = cv2.boxFilter(rgba, -1, (2 * r + 1, 2 * r + 1), normalize=True, borderType=bt)
    got8 = ctx.boxfilter(dev(spec), rgba, r, border)
    assert np.max(np.abs(got8.astype(int) - ref8.astype(int))) <= 1  # OpenCV rounds its own way


@pytest.mark.parametrize("spec", DEVICES)
def test_padded_rows_and_pipeline(spec):
    """A view with padded rows is used in place; a device-buffer pipeline copies nothing."""
    big = rng.integers(0, 256, (20, 40, 4), dtype=np.uint8)
    view = big[:, 3:33]                       # rows 160 bytes apart, 120 wide
    gray = ctx.grayscale(dev(spec), view)
    v = view.astype(np.int64)
    t = 299 * v[..., 0] + 587 * v[..., 1] + 114 * v[..., 2]
    assert np.max(np.abs(gray - (t + 500) // 1000)) <= 1
    d = dev(spec)
    img = ctx.buffer(d, np.ascontiguousarray(view))
    blur = ctx.buffer(d, nbytes=img.nbytes)
    g = ctx.buffer(d, nbytes=30 * 20)
    f = ctx.buffer(d, rng.uniform(0, 1, 30 * 20).astype(np.float32))
    fo = ctx.buffer(d, nbytes=f.nbytes)
    ctx.reduce_sum(d, f, n=600)  # the first sum makes its zeroed ticket
    ctx.reset_copies()
    ctx.boxfilter(d, img, 1, out=blur, width=30, height=20, rgba8=True)
    ctx.grayscale(d, blur, out=g, width=30, height=20)
    ctx.boxfilter(d, f, 2, out=fo, width=30, height=20, rgba8=False)
    ctx.reduce_sum(d, fo, n=600)
    c = ctx.copies()
    assert c["uploads"] == 0 and c["downloads"] <= 1


def test_cli_grayscale(tmp_path):
    """The library's gray image of a PNG is the CLI's."""
    cv2 = pytest.importorskip("cv2")
    cli = os.environ.get("COALESCE_CLI")
    if not cli:
        pytest.skip("COALESCE_CLI not set")
    rgba = rng.integers(0, 256, (23, 37, 4), dtype=np.uint8)
    rgba[..., 3] = 255
    src, dst = str(tmp_path / "in.png"), str(tmp_path / "out.png")
    cv2.imwrite(src, cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA))
    env = dict(os.environ, COALESCE_CACHE_DIR=str(tmp_path))
    subprocess.run([cli, "run", "grayscale", "--device", "c", "--reps", "1", "--input", src,
                    "--output", dst], check=True, env=env, stdout=subprocess.DEVNULL)
    ref = cv2.imread(dst, cv2.IMREAD_UNCHANGED)
    for spec in DEVICES:
        assert np.array_equal(ctx.grayscale(dev(spec), rgba), ref)


@pytest.mark.parametrize("spec", DEVICES)
def test_collider_and_raytracer(spec):
    d = dev(spec)
    col = coalesce.Collider(ctx, d, x=[4, 6], y=[5, 5], vx=[1, -1], vy=[0, 0], radius=[0.5, 0.5],
                            width=10, height=10, dt=0.1)
    col.step(20)
    x, y, vx, vy = col.state()
    assert abs(vx[0] + 1) < 1e-3 and abs(vx[1] - 1) < 1e-3
    rnd = coalesce.Collider(ctx, d, balls=300, r_min=0.3, width=40, height=30, dt=0.05, seed=3)
    rnd.set_boundary(True)
    rnd.step(5)
    x, y, _, _ = rnd.state()
    assert np.all((x >= 0) & (x <= 40) & (y >= 0) & (y <= 30))
    spheres = [coalesce.Sphere((0, 1, 0), 1, (0.9, 0.2, 0.2), 0, 2, 1, 0, 0.5),
               coalesce.Sphere((3, 0.7, -2), 0.7, (0.2, 0.3, 0.9), 0.5, 0, 0, 0, 0)]
    lights = [coalesce.Light((10, 15, -5), (0.8, 0.8, 0.8))]
    rt = coalesce.Raytracer(ctx, d, spheres, lights)
    ref = coalesce.Raytracer(ctx, dev("c"), spheres, lights, variant="c")
    img, want = rt.render(48, 32, 0.5), ref.render(48, 32, 0.5)
    off = np.max(np.abs(img.astype(int) - want.astype(int)), axis=2) > 2
    assert off.sum() <= 2 and img[..., 0].max() > img[..., 0].min() + 50


def test_errors():
    with pytest.raises(coalesce.Error) as e:
        ctx.reduce_sum(0, np.zeros(0, np.float32))
    assert e.value.status == "invalid" and "n is 0" in str(e.value)
    with pytest.raises(coalesce.Error):
        ctx.boxfilter(0, np.zeros((4, 4), np.float32), 1, variant="no-such-variant")
