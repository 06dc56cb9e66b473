"""ctypes bindings of libcoalesce: every workload on numpy arrays or device buffers.

    import numpy as np, coalesce
    ctx = coalesce.Context()
    dev = ctx.device("opencl")          # or "c", "omp", "cuda", an index
    c = ctx.sgemm(dev, a, b)            # a @ b, float32
    buf = ctx.buffer(dev, image)        # a device buffer holding the array
    gray = ctx.grayscale(dev, buf, width=w, height=h)

Every call raises coalesce.Error (with the library's status and message) on
failure. Arrays are passed as they are when they are C-contiguous (rows of
an image may be padded: a 2D/3D view with a row stride), else copied.
"""
import ctypes
import ctypes.util
import numbers
import os
import weakref

import numpy as np

__all__ = ["Context", "Buffer", "Collider", "Raytracer", "Sphere", "Light", "Error", "load",
           "random_scene"]


class Error(RuntimeError):
    """A call that failed: .status is the co_status name ("invalid", "unsupported", ...),
    str() its message."""

    def __init__(self, status, message):
        self.status = _lib.co_status_name(status).decode()
        super().__init__("%s (%s)" % (message, self.status))


class _Mem(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("host", ctypes.c_void_p)]


class _Copies(ctypes.Structure):
    _fields_ = [("uploads", ctypes.c_uint64), ("downloads", ctypes.c_uint64),
                ("upload_bytes", ctypes.c_uint64), ("download_bytes", ctypes.c_uint64)]


class Sphere(ctypes.Structure):
    """co_rt_sphere: center, radius, color, reflect, orbit, omega, phase, bounce."""
    _fields_ = [("center", ctypes.c_float * 3), ("radius", ctypes.c_float),
                ("color", ctypes.c_float * 3), ("reflect", ctypes.c_float),
                ("orbit", ctypes.c_float), ("omega", ctypes.c_float),
                ("phase", ctypes.c_float), ("bounce", ctypes.c_float)]


class Light(ctypes.Structure):
    """co_rt_light: position, color."""
    _fields_ = [("position", ctypes.c_float * 3), ("color", ctypes.c_float * 3)]


class _Scene(ctypes.Structure):
    _fields_ = [("spheres", ctypes.POINTER(Sphere)), ("nspheres", ctypes.c_size_t),
                ("lights", ctypes.POINTER(Light)), ("nlights", ctypes.c_size_t),
                ("eye", ctypes.c_float * 3), ("look_at", ctypes.c_float * 3),
                ("fov_deg", ctypes.c_float), ("ambient", ctypes.c_float),
                ("specular", ctypes.c_float), ("plane_y", ctypes.c_float),
                ("checker_size", ctypes.c_float), ("plane_reflect", ctypes.c_float),
                ("depth", ctypes.c_uint)]


_lib = None


def load(path=None):
    """The shared library: `path`, else $COALESCE_LIBRARY, else libcoalesce.so.0."""
    global _lib
    if _lib is not None and path is None:
        return _lib
    path = path or os.environ.get("COALESCE_LIBRARY") or ctypes.util.find_library("coalesce") \
        or "libcoalesce.so.0"
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise OSError("coalesce: cannot load the library %s (%s); install it, or set "
                      "COALESCE_LIBRARY to its path" % (path, e)) from None
    P, S, F, D, I, U64 = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_float, ctypes.c_double,
                          ctypes.c_int, ctypes.c_uint64)
    sig = {
        "co_context_create": [ctypes.POINTER(P)], "co_device_count": [P],
        "co_device_select": [P, ctypes.c_char_p, ctypes.POINTER(S), S, ctypes.POINTER(S)],
        "co_buffer_create": [P, S, S, ctypes.POINTER(P)], "co_buffer_upload": [P, P, S],
        "co_buffer_download": [P, P, S], "co_buffer_size": [P], "co_buffer_device": [P],
        "co_context_set_check": [P, ctypes.c_bool],
        "co_context_copies": [P, ctypes.POINTER(_Copies)], "co_context_reset_copies": [P],
        "co_sgemm_ex": [P, S, ctypes.c_char_p, I, I, I, S, S, S, F, _Mem, S, _Mem, S, F, _Mem, S],
        "co_copy": [P, S, ctypes.c_char_p, S, _Mem, _Mem],
        "co_reduce_sum": [P, S, ctypes.c_char_p, S, _Mem, ctypes.POINTER(D)],
        "co_grayscale": [P, S, ctypes.c_char_p, S, S, _Mem, S, _Mem, S],
        "co_boxfilter": [P, S, ctypes.c_char_p, I, S, S, ctypes.c_uint, I, _Mem, S, _Mem, S],
        "co_collider_create": [P, S, ctypes.c_char_p, S, D, D, D, P, P, P, P, P, P,
                               ctypes.POINTER(P)],
        "co_collider_create_random": [P, S, ctypes.c_char_p, S, D, D, D, D, D, D, U64,
                                      ctypes.POINTER(P)],
        "co_collider_step": [P, ctypes.c_uint], "co_collider_read": [P, P, P, P, P],
        "co_collider_set_boundary": [P, I], "co_collider_balls": [P],
        "co_rt_scene_default": [ctypes.POINTER(_Scene)],
        "co_raytracer_create": [P, S, ctypes.c_char_p, ctypes.POINTER(_Scene), ctypes.POINTER(P)],
        "co_raytracer_render": [P, S, S, D, _Mem, S],
        "co_rt_scene_random": [ctypes.POINTER(_Scene), ctypes.POINTER(Sphere), S,
                               ctypes.POINTER(Light), S, U64],
    }
    for name, args in sig.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = S if name in ("co_device_count", "co_buffer_size", "co_buffer_device",
                                   "co_collider_balls") else I
    for name in ("co_context_destroy", "co_buffer_free", "co_collider_destroy",
                 "co_raytracer_destroy"):
        getattr(lib, name).argtypes = [P]
        getattr(lib, name).restype = None
    lib.co_last_error.restype = ctypes.c_char_p
    lib.co_last_error.argtypes = []
    lib.co_status_name.restype = ctypes.c_char_p
    lib.co_status_name.argtypes = [I]
    lib.co_variant_default.restype = ctypes.c_char_p
    lib.co_variant_default.argtypes = [P, ctypes.c_char_p, S]
    lib.co_device_get.restype = ctypes.POINTER(ctypes.c_char * 32)  # spec is the first field
    lib.co_device_get.argtypes = [P, S]
    _lib = lib
    return lib


def _check(status):
    if status:
        raise Error(status, _lib.co_last_error().decode())


def _name(variant):
    return variant.encode() if variant else None


class Buffer:
    """Device memory (co_buffer) of a context: create with Context.buffer."""

    def __init__(self, ctx, device, nbytes):
        self._ctx = ctx  # keeps the context alive while the buffer lives
        self._p = ctypes.c_void_p()
        _check(_lib.co_buffer_create(ctx._p, _index(device), nbytes, ctypes.byref(self._p)))
        self.nbytes, self.device = nbytes, device
        ctx._children.add(self)

    def upload(self, array):
        a = np.ascontiguousarray(array)
        _check(_lib.co_buffer_upload(self._p, a.ctypes.data, a.nbytes))

    def download(self, shape, dtype):
        out = np.empty(shape, dtype)
        _check(_lib.co_buffer_download(self._p, out.ctypes.data, out.nbytes))
        return out

    def free(self):
        if self._p:
            if self._ctx._p:  # (a closed context freed it)
                _lib.co_buffer_free(self._p)
            self._p = ctypes.c_void_p()

    def __del__(self):
        self.free()


def _index(device):
    """A device index (an int from Context.device): checked here, as C takes a size_t."""
    if not isinstance(device, numbers.Integral) or device < 0:
        raise ValueError("device must be an index from Context.device(), not %r" % (device,))
    return int(device)


def _count(n, what):
    if not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError("%s must be an integer >= 0, not %r" % (what, n))
    return int(n)


def _in(x, dtype):
    """An input operand: (co_mem, keep-alive)."""
    if isinstance(x, Buffer):
        return _Mem(x._p, None), x
    a = np.ascontiguousarray(x, dtype=dtype)
    return _Mem(None, a.ctypes.data), a


def _elements(k):
    """The float32 elements an operand (array or Buffer) holds."""
    return k.size if isinstance(k, np.ndarray) else k.nbytes // 4


def _rows(x, dtype, row_bytes):
    """An image operand with its row stride in bytes (padded rows allowed; other layouts,
    a flipped view, copied)."""
    if isinstance(x, Buffer):
        return _Mem(x._p, None), row_bytes, x
    a = np.asarray(x)
    if a.dtype != dtype or a.strides[-1] != a.itemsize or a.strides[0] < row_bytes or \
            (a.ndim == 3 and a.strides[1] != a.shape[2] * a.itemsize):
        a = np.ascontiguousarray(a, dtype=dtype)
    return _Mem(None, a.ctypes.data), a.strides[0], a


def _out(x, what, dtype, shape):
    """A caller's output array, written in place: the call's dtype and shape exactly, its
    rows packed or padded (a view into wider rows)."""
    if not isinstance(x, np.ndarray):
        raise TypeError("%s must be a numpy array or a Buffer, not %s" % (what, type(x).__name__))
    if x.dtype != dtype or x.shape != tuple(shape):
        raise ValueError("%s must be %s of shape %s, not %s of shape %s"
                         % (what, np.dtype(dtype).name, tuple(shape), x.dtype, x.shape))
    if not x.flags.writeable:
        raise ValueError("%s is read-only" % what)
    if x.size and (x.strides[0] < x[0].nbytes or not x[0].flags.c_contiguous):
        raise ValueError("%s must be C-contiguous, its rows packed or padded" % what)
    return x


class Context:
    """A coalesce context (co_context): every backend probed, its devices."""

    def __init__(self, library=None):
        self._p = ctypes.c_void_p()  # (first: __del__ runs even when load fails)
        load(library)
        self._children = weakref.WeakSet()  # buffers, colliders, ray tracers: freed by close
        _check(_lib.co_context_create(ctypes.byref(self._p)))

    def close(self):
        """Frees the context and what lives in it (its Buffers, Colliders, Raytracers)."""
        if self._p:
            for child in list(self._children):
                child.free()
            _lib.co_context_destroy(self._p)
            self._p = ctypes.c_void_p()

    def __del__(self):
        self.close()

    def devices(self):
        """The device specs, by index."""
        n = _lib.co_device_count(self._p)
        return [_lib.co_device_get(self._p, i).contents.value.decode() for i in range(n)]

    def device(self, spec):
        """The index of the first device a SPEC selects ("c", "omp", "opencl", ...)."""
        if isinstance(spec, numbers.Integral):
            if not 0 <= spec < _lib.co_device_count(self._p):
                raise ValueError("device %d: this context has devices 0..%d"
                                 % (spec, _lib.co_device_count(self._p) - 1))
            return int(spec)
        idx = (ctypes.c_size_t * 16)()
        count = ctypes.c_size_t()
        _check(_lib.co_device_select(self._p, spec.encode(), idx, 16, ctypes.byref(count)))
        return idx[0]

    def default_variant(self, device, workload):
        """The variant a call on `device` runs when none is named, or None where no variant
        of `workload` ("gemm", "boxfilter", ...) runs there: its calls raise Error
        "unsupported"."""
        v = _lib.co_variant_default(self._p, workload.encode(), device)
        return v.decode() if v else None

    def set_check(self, on=True):
        _check(_lib.co_context_set_check(self._p, on))

    def copies(self):
        c = _Copies()
        _check(_lib.co_context_copies(self._p, ctypes.byref(c)))
        return {f: getattr(c, f) for f, _ in _Copies._fields_}

    def reset_copies(self):
        _check(_lib.co_context_reset_copies(self._p))

    def buffer(self, device, array=None, nbytes=None):
        """A buffer on `device`: holding `array` (uploaded), or `nbytes` undefined bytes."""
        b = Buffer(self, device, nbytes if array is None else np.asarray(array).nbytes)
        if array is not None:
            b.upload(array)
        return b

    def sgemm(self, device, a, b, c=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False,
              variant=None):
        """alpha op(a) @ op(b) + beta c, float32 numpy arrays (C- or Fortran-ordered: a
        Fortran array is passed column-major, no copy). Returns c (a new array if None)."""
        a, b = np.asarray(a), np.asarray(b)
        if a.ndim != 2 or b.ndim != 2:
            raise ValueError("sgemm: a and b must be 2-D, not %dD and %dD" % (a.ndim, b.ndim))
        m, k = (a.shape[1], a.shape[0]) if trans_a else a.shape
        k2, n = (b.shape[1], b.shape[0]) if trans_b else b.shape
        if k != k2:
            raise ValueError("sgemm: op(a) is %dx%d, op(b) %dx%d" % (m, k, k2, n))
        col = a.flags.f_contiguous and not a.flags.c_contiguous
        order = "F" if col else "C"
        a = np.asarray(a, np.float32, order=order)
        b = np.asarray(b, np.float32, order=order)
        if c is None:
            c = np.zeros((m, n), np.float32, order=order)
        elif not isinstance(c, np.ndarray) or c.dtype != np.float32 or c.shape != (m, n) or \
                not c.flags.writeable or not (c.flags.f_contiguous if col else c.flags.c_contiguous):
            raise ValueError("sgemm: c must be a writable float32 %dx%d array, %s-contiguous"
                             % (m, n, order))
        if not m or not n or not k:  # (numpy's: an empty product is zeros)
            c *= np.float32(beta) if beta else np.float32(0)
            return c
        ld = (lambda x: x.shape[0]) if col else (lambda x: x.shape[1])
        _check(_lib.co_sgemm_ex(self._p, _index(device), _name(variant), 1 if col else 0,
                                int(trans_a), int(trans_b), m, n, k, alpha,
                                _Mem(None, a.ctypes.data), ld(a), _Mem(None, b.ctypes.data), ld(b),
                                beta, _Mem(None, c.ctypes.data), ld(c)))
        return c

    def copy(self, device, src, dst=None, n=None, variant=None):
        """dst = src, the first n float32 elements (all of src by default). src/dst: arrays
        or Buffers (dst a writable C-contiguous float32 array); returns dst (a new array of
        src's shape if None)."""
        ms, ks = _in(src, np.float32)
        have = _elements(ks)
        n = have if n is None else _count(n, "copy: n")
        if n > have:
            raise ValueError("copy: n=%d is over the %d elements of src" % (n, have))
        if dst is None:
            whole = isinstance(ks, np.ndarray) and n == ks.size
            dst = np.empty(ks.shape if whole else n, np.float32)
        elif isinstance(dst, Buffer):
            if n * 4 > dst.nbytes:
                raise ValueError("copy: n=%d is over the %d elements of dst" % (n, dst.nbytes // 4))
        elif not isinstance(dst, np.ndarray) or dst.dtype != np.float32 or \
                not dst.flags.c_contiguous or not dst.flags.writeable or dst.size < n:
            raise ValueError("copy: dst must be a writable C-contiguous float32 array of at least "
                             "%d elements, or a Buffer" % n)
        if n:
            md = _Mem(dst._p, None) if isinstance(dst, Buffer) else _Mem(None, dst.ctypes.data)
            _check(_lib.co_copy(self._p, _index(device), _name(variant), n, ms, md))
        return dst

    def reduce_sum(self, device, x, n=None, variant=None):
        """The float32 sum of x (array or Buffer), as a float."""
        mx, kx = _in(x, np.float32)
        have = _elements(kx)
        n = have if n is None else _count(n, "reduce_sum: n")
        if n > have:
            raise ValueError("reduce_sum: n=%d is over the %d elements of x" % (n, have))
        if not n:
            return 0.0
        s = ctypes.c_double()
        _check(_lib.co_reduce_sum(self._p, _index(device), _name(variant), n, mx,
                                  ctypes.byref(s)))
        return s.value

    def grayscale(self, device, rgba, out=None, width=None, height=None, variant=None):
        """uint8 (h, w, 4) -> uint8 (h, w) gray, or Buffers (give width and height)."""
        if isinstance(rgba, Buffer):
            if width is None or height is None:
                raise ValueError("grayscale: a Buffer needs width and height")
        else:
            rgba = np.asarray(rgba)
            if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
                raise ValueError("grayscale: rgba must be uint8 of shape (h, w, 4), not %s of "
                                 "shape %s" % (rgba.dtype, rgba.shape))
            height, width = rgba.shape[:2]
        if out is None:
            out = np.empty((height, width), np.uint8)
        elif not isinstance(out, Buffer):
            _out(out, "grayscale: out", np.uint8, (height, width))
        if not width or not height:
            return out
        mi, si, ki = _rows(rgba, np.uint8, 4 * width)
        mo, so, ko = _rows(out, np.uint8, width)
        _check(_lib.co_grayscale(self._p, _index(device), _name(variant), width, height, mi, si,
                                 mo, so))
        return out

    BORDERS = {"clamp": 0, "replicate": 0, "reflect101": 1, "reflect_101": 1, "zero": 2,
               "constant": 2}

    def boxfilter(self, device, image, radius, border="clamp", out=None, width=None,
                  height=None, rgba8=None, variant=None):
        """The (2r+1)^2 mean filter of a float32 (h, w) image (other real types are
        converted) or a uint8 (h, w, 4) RGBA8 one, or of a Buffer (then width, height and
        rgba8 are needed)."""
        if isinstance(image, Buffer):
            if width is None or height is None or rgba8 is None:
                raise ValueError("boxfilter: a Buffer needs width, height and rgba8")
        else:
            image = np.asarray(image)
            rgba8 = image.ndim == 3
            if (image.ndim == 3 and (image.shape[2] != 4 or image.dtype != np.uint8)) or \
                    image.ndim not in (2, 3) or (image.ndim == 2 and image.dtype == np.uint8):
                raise ValueError("boxfilter: the image must be (h, w) of floats or uint8 "
                                 "(h, w, 4) RGBA8, not %s of shape %s (a gray uint8 image: "
                                 "as float32)" % (image.dtype, image.shape))
            height, width = image.shape[:2]
        if not isinstance(radius, numbers.Integral) or not 0 <= radius < 2 ** 31:
            raise ValueError("boxfilter: radius must be an integer >= 0, not %r" % (radius,))
        if border not in self.BORDERS:
            raise ValueError("boxfilter: border must be one of %s, not %r"
                             % (", ".join(self.BORDERS), border))
        dtype = np.uint8 if rgba8 else np.float32
        shape = (height, width, 4) if rgba8 else (height, width)
        if out is None:
            out = np.empty(shape, dtype)
        elif not isinstance(out, Buffer):
            _out(out, "boxfilter: out", dtype, shape)
        if not width or not height:
            return out
        mi, si, ki = _rows(image, dtype, 4 * width)
        mo, so, ko = _rows(out, dtype, 4 * width)
        _check(_lib.co_boxfilter(self._p, _index(device), _name(variant), 1 if rgba8 else 0,
                                 width, height, int(radius), self.BORDERS[border], mi, si, mo,
                                 so))
        return out


class Collider:
    """Balls in a box on a device (co_collider)."""

    def __init__(self, ctx, device, x=None, y=None, vx=None, vy=None, radius=None, mass=None,
                 width=800.0, height=600.0, dt=0.1, balls=None, r_min=0.5, r_max=None,
                 speed=1.0, seed=1, variant=None):
        self._ctx = ctx
        self._p = ctypes.c_void_p()
        ctx._children.add(self)
        if x is None:  # random, as the workload makes them
            if balls is None:
                raise ValueError("Collider: give balls (random ones) or x, y, vx, vy, radius")
            _check(_lib.co_collider_create_random(ctx._p, _index(device), _name(variant),
                                                  _count(balls, "Collider: balls"), r_min,
                                                  r_max or r_min, width, height, speed, dt, seed,
                                                  ctypes.byref(self._p)))
            return
        if any(v is None for v in (y, vx, vy, radius)):
            raise ValueError("Collider: x needs y, vx, vy and radius")
        arrs = [np.ascontiguousarray(v, np.float32).ravel() for v in (x, y, vx, vy, radius)]
        m = None if mass is None else np.ascontiguousarray(mass, np.float32).ravel()
        sizes = [a.size for a in arrs] + ([] if m is None else [m.size])
        if len(set(sizes)) != 1:
            raise ValueError("Collider: x, y, vx, vy, radius%s must have one length, not %s"
                             % ("" if m is None else ", mass", sizes))
        self._keep = arrs + [m]
        _check(_lib.co_collider_create(ctx._p, _index(device), _name(variant), arrs[0].size, width,
                                       height, dt, *[a.ctypes.data for a in arrs],
                                       None if m is None else m.ctypes.data,
                                       ctypes.byref(self._p)))

    def step(self, steps=1):
        _check(_lib.co_collider_step(self._p, steps))

    def set_boundary(self, periodic):
        _check(_lib.co_collider_set_boundary(self._p, 1 if periodic else 0))

    def state(self):
        """(x, y, vx, vy), float32 arrays."""
        n = _lib.co_collider_balls(self._p)
        out = [np.empty(n, np.float32) for _ in range(4)]
        _check(_lib.co_collider_read(self._p, *[o.ctypes.data for o in out]))
        return tuple(out)

    def free(self):
        if getattr(self, "_p", None):
            if self._ctx._p:  # (a closed context freed it)
                _lib.co_collider_destroy(self._p)
            self._p = None

    def __del__(self):
        self.free()


def random_scene(spheres, lights=2, seed=1):
    """The workload's seeded scene (`coalesce run raytrace --spheres N --lights L --seed S`):
    ([Sphere], [Light]) for Raytracer, whose default camera and shading it has."""
    load()
    s = _Scene()
    sp, li = (Sphere * max(1, spheres))(), (Light * max(1, lights))()
    _check(_lib.co_rt_scene_random(ctypes.byref(s), sp, spheres, li, lights, seed))
    return list(sp[:spheres]), list(li[:lights])


class Raytracer:
    """A scene of spheres and lights rendered into RGBA8 frames (co_raytracer)."""

    def __init__(self, ctx, device, spheres, lights, variant=None, **camera):
        self._ctx = ctx
        s = _Scene()
        _check(_lib.co_rt_scene_default(ctypes.byref(s)))
        sp = (Sphere * max(1, len(spheres)))(*spheres)
        li = (Light * max(1, len(lights)))(*lights)
        s.spheres, s.nspheres = ctypes.cast(sp, ctypes.POINTER(Sphere)), len(spheres)
        s.lights, s.nlights = ctypes.cast(li, ctypes.POINTER(Light)), len(lights)
        for k, v in camera.items():
            if k in ("eye", "look_at"):
                getattr(s, k)[:] = v
            else:
                setattr(s, k, v)
        self._p = ctypes.c_void_p()
        ctx._children.add(self)
        _check(_lib.co_raytracer_create(ctx._p, _index(device), _name(variant), ctypes.byref(s),
                                        ctypes.byref(self._p)))

    def render(self, width, height, t=0.0, out=None):
        """The frame at time t: uint8 (height, width, 4), or into a Buffer `out`."""
        if isinstance(out, Buffer):
            _check(_lib.co_raytracer_render(self._p, width, height, t, _Mem(out._p, None), 4 * width))
            return out
        if out is None:
            out = np.empty((height, width, 4), np.uint8)
        else:
            _out(out, "render: out", np.uint8, (height, width, 4))
        m, stride, k = _rows(out, np.uint8, 4 * width)
        _check(_lib.co_raytracer_render(self._p, width, height, t, m, stride))
        return out

    def free(self):
        if getattr(self, "_p", None):
            if self._ctx._p:  # (a closed context freed it)
                _lib.co_raytracer_destroy(self._p)
            self._p = None

    def __del__(self):
        self.free()
