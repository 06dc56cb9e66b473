"""The Python bindings against numpy (matmul, sum), OpenCV's boxFilter and the
library's own CLI (grayscale, ray tracer and collider results), on every device here
(COALESCE_DEVICES narrows them). A workload no variant of which runs on a device (Vulkan
until its shader exists) must raise Error "unsupported" there; its tests are skipped."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

import coalesce

ctx = coalesce.Context()
DEVICES = [d for d in ctx.devices()
           if not os.environ.get("COALESCE_DEVICES") or d in os.environ["COALESCE_DEVICES"].split(",")]
rng = np.random.default_rng(5)


def dev(spec):
    return ctx.devices().index(spec)


def need(spec, workload):
    """Skip where no variant of the workload runs on the device, once its call says so."""
    if ctx.default_variant(dev(spec), workload) is None:
        with pytest.raises(coalesce.Error) as e:
            if workload == "boxfilter":
                ctx.boxfilter(dev(spec), np.zeros((2, 3), np.float32), 1)
            elif workload == "collider":
                coalesce.Collider(ctx, dev(spec), balls=4, width=10, height=10)
            else:
                coalesce.Raytracer(ctx, dev(spec), *coalesce.random_scene(2)).render(3, 2)
        assert e.value.status == "unsupported"
        pytest.skip("%s does not run on %s" % (workload, spec))


def cli(args, tmp_path):
    """Run the CLI (COALESCE_CLI), or skip without one."""
    exe = os.environ.get("COALESCE_CLI")
    if not exe:
        pytest.skip("COALESCE_CLI not set")
    env = dict(os.environ, COALESCE_CACHE_DIR=str(tmp_path))
    subprocess.run([exe, "run"] + args + ["--device", "c", "--reps", "1", "--warmup", "0"],
                   check=True, env=env, stdout=subprocess.DEVNULL)


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
    need(spec, "boxfilter")
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
    need(spec, "boxfilter")
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
    rgba = rng.integers(0, 256, (23, 37, 4), dtype=np.uint8)
    rgba[..., 3] = 255
    src, dst = str(tmp_path / "in.png"), str(tmp_path / "out.png")
    cv2.imwrite(src, cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA))
    cli(["grayscale", "--input", src, "--output", dst], tmp_path)
    ref = cv2.imread(dst, cv2.IMREAD_UNCHANGED)
    for spec in DEVICES:
        assert np.array_equal(ctx.grayscale(dev(spec), rgba), ref)


def test_cli_raytrace(tmp_path):
    """The workload's seeded scene (random_scene) renders as the CLI's frame: the same bytes
    on the host tracer, within the workload's tolerance on every device."""
    cv2 = pytest.importorskip("cv2")
    dst = str(tmp_path / "frame.png")
    cli(["raytrace", "--variant", "c", "--width", "96", "--height", "64", "--spheres", "16",
         "--lights", "3", "--time", "0.5", "--seed", "9", "--output", dst], tmp_path)
    ref = cv2.cvtColor(cv2.imread(dst, cv2.IMREAD_UNCHANGED), cv2.COLOR_BGRA2RGBA)
    spheres, lights = coalesce.random_scene(16, 3, seed=9)
    host = coalesce.Raytracer(ctx, dev("c"), spheres, lights, variant="c")
    assert np.array_equal(host.render(96, 64, 0.5), ref)
    for spec in DEVICES:
        if ctx.default_variant(dev(spec), "raytrace") is None:
            continue
        img = coalesce.Raytracer(ctx, dev(spec), spheres, lights).render(96, 64, 0.5)
        off = np.max(np.abs(img.astype(int) - ref.astype(int)), axis=2) > 2
        assert off.sum() <= 6, spec  # 0.1% of the pixels, as the workload's check


def test_cli_collider(tmp_path):
    """Random balls from a seed are the CLI's: after the same steps on the host grid, the
    same state (its CSV prints floats exactly)."""
    out = str(tmp_path / "state.csv")
    cli(["collider", "--variant", "c-grid", "--balls", "300", "--radius", "0.3", "--width", "40",
         "--height", "30", "--dt", "0.05", "--steps", "7", "--seed", "4", "--output", out],
        tmp_path)
    ref = np.loadtxt(out, delimiter=",", dtype=np.float32, ndmin=2, skiprows=1)  # a header
    col = coalesce.Collider(ctx, dev("c"), balls=300, r_min=0.3, width=40, height=30, dt=0.05,
                            seed=4, variant="c-grid")
    col.step(7)
    assert np.array_equal(np.stack(col.state(), axis=1), ref[:, :4])


@pytest.mark.parametrize("spec", DEVICES)
def test_collider(spec):
    need(spec, "collider")
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


@pytest.mark.parametrize("spec", DEVICES)
def test_raytracer(spec):
    need(spec, "raytrace")
    d = dev(spec)
    spheres = [coalesce.Sphere((0, 1, 0), 1, (0.9, 0.2, 0.2), 0, 2, 1, 0, 0.5),
               coalesce.Sphere((3, 0.7, -2), 0.7, (0.2, 0.3, 0.9), 0.5, 0, 0, 0, 0)]
    lights = [coalesce.Light((10, 15, -5), (0.8, 0.8, 0.8))]
    rt = coalesce.Raytracer(ctx, d, spheres, lights)
    ref = coalesce.Raytracer(ctx, dev("c"), spheres, lights, variant="c")
    img, want = rt.render(48, 32, 0.5), ref.render(48, 32, 0.5)
    off = np.max(np.abs(img.astype(int) - want.astype(int)), axis=2) > 2
    assert off.sum() <= 2 and img[..., 0].max() > img[..., 0].min() + 50


def test_errors():
    assert ctx.reduce_sum(0, np.zeros(0, np.float32)) == 0.0  # numpy's empty sum
    with pytest.raises(coalesce.Error) as e:
        ctx.boxfilter(0, np.zeros((4, 4), np.float32), 1, variant="no-such-variant")
    assert e.value.status == "invalid" and "no-such-variant" in str(e.value)
    with pytest.raises(coalesce.Error) as e:
        coalesce.random_scene(5000)
    assert e.value.status == "invalid" and "4096" in str(e.value)


def test_bad_arguments():
    """What the C library cannot check (host arrays have no size there): every call checks
    its arrays' sizes, dtypes and layouts against what it passes, and raises ValueError."""
    d = dev("c")
    a, b = np.ones((37, 41), np.float32), np.ones((41, 53), np.float32)
    x = np.arange(1001, dtype=np.float32)
    img = np.zeros((7, 9, 4), np.uint8)
    f = np.zeros((7, 9), np.float32)
    bad = [
        lambda: ctx.sgemm(d, a, b, c=np.zeros((2, 53), np.float32)),    # c too small
        lambda: ctx.sgemm(d, x, b),                                     # 1-D a
        lambda: ctx.grayscale(d, img, out=np.zeros((2, 9), np.uint8)),  # out too small
        lambda: ctx.grayscale(d, np.zeros((7, 9, 5), np.uint8)),        # 5 channels
        lambda: ctx.grayscale(d, img.astype(np.float32)),               # not uint8
        lambda: ctx.boxfilter(d, f, 1, out=np.zeros((2, 9), np.float32)),
        lambda: ctx.boxfilter(d, f, 1, out=np.zeros((7, 9), np.float64)),
        lambda: ctx.boxfilter(d, f, 2 ** 32 + 1),                       # wraps in C's unsigned
        lambda: ctx.boxfilter(d, f, -1),
        lambda: ctx.boxfilter(d, f, 1, border="wrap"),
        lambda: ctx.boxfilter(d, img.astype(np.float32), 1),            # (h, w, 4) of floats
        lambda: ctx.boxfilter(d, img[..., 0], 1),                       # gray uint8
        lambda: ctx.reduce_sum(d, x[:10], n=10 ** 6),
        lambda: ctx.copy(d, x, dst=np.zeros(10, np.float32)),
        lambda: ctx.copy(d, x, dst=np.zeros(1001)),                     # float64 dst
        lambda: ctx.copy(d, x[:10], dst=np.zeros(20, np.float32)[::2]),  # strided dst
        lambda: ctx.copy(d, x[:10], n=100000),
        lambda: ctx.copy(-1, x),
        lambda: coalesce.Collider(ctx, d, x=[1, 5, 9, 13], y=[1], vx=[0] * 4, vy=[0] * 4,
                                  radius=[0.5] * 4, width=20, height=20),
        lambda: coalesce.Raytracer(ctx, d, *coalesce.random_scene(2)).render(
            8, 6, out=np.zeros((2, 8, 4), np.uint8)),
    ]
    for i, call in enumerate(bad):
        with pytest.raises(ValueError):
            call()
            pytest.fail("case %d did not raise" % i)
    # Flipped views are copied, not refused; empty arrays give numpy's results.
    g = np.random.default_rng(1).uniform(0, 1, (7, 9)).astype(np.float32)
    assert np.allclose(ctx.boxfilter(d, g[::-1], 1), ctx.boxfilter(d, g[::-1].copy(), 1))
    assert ctx.sgemm(d, np.zeros((0, 3), np.float32), np.zeros((3, 4), np.float32)).shape == (0, 4)
    assert not ctx.sgemm(d, np.zeros((2, 0), np.float32), np.zeros((0, 4), np.float32)).any()
    assert ctx.copy(d, np.arange(6, dtype=np.float32).reshape(2, 3)).shape == (2, 3)


def test_close_frees_children():
    """A context closed while its buffers live frees them; freeing them again is harmless."""
    c = coalesce.Context()
    buf = c.buffer(c.device("c"), np.ones(16, np.float32))
    c.close()
    buf.free()
    del buf
