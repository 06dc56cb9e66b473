/* The ray tracer's scene layout, shared by kernels/raytrace.cl (the
 * OpenCL, CUDA and host tracer) and kernels/raytrace.comp (Vulkan): arrays
 * of `real`, identical on host and devices -- a header (camera, shading
 * constants), RT_MAX_LIGHTS lights, then one record of RT_SW words per
 * sphere. The input scene holds each sphere's motion; the world holds where
 * it is at time t. Defines only (GLSL reads them too). */
#ifndef RT_LAYOUT
#define RT_LAYOUT
/* Header words. */
#define RT_EYE 0        /* 3: camera position */
#define RT_FWD 3        /* 3: unit view direction */
#define RT_RIGHT 6      /* 3: right, scaled by tan(fov/2) * aspect */
#define RT_UP 9         /* 3: up, scaled by tan(fov/2) */
#define RT_AMBIENT 12
#define RT_PLANE_Y 13   /* the ground plane y = PLANE_Y */
#define RT_CELL 14      /* 1 / checker cell size */
#define RT_EPS 15       /* secondary-ray offset along the normal, scaled to the scene */
#define RT_PLANE_REFL 16
#define RT_SPEC 17      /* specular strength */
#define RT_HEADER 20
#define RT_MAX_LIGHTS 8
#define RT_LW 6         /* light: x y z r g b */
#define RT_SPHERES (RT_HEADER + RT_MAX_LIGHTS * RT_LW)
#define RT_SW 12        /* words per sphere */
/* Sphere in the world: cx cy cz r^2 | 1/r red green blue | reflectivity. */
#define RT_R2 3
#define RT_INVR 4
#define RT_COL 5
#define RT_REFL 8
/* Sphere in the scene: ox oy oz radius | orbit-radius omega phase bounce |
 * red green blue reflectivity. */
#define RT_RADIUS 3
#define RT_ORBIT 4
#define RT_OMEGA 5
#define RT_PHASE 6
#define RT_BOUNCE 7
#define RT_SCOL 8
#define RT_SREFL 11
#define RT_FAR 1e30f
#endif
