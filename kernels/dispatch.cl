/* Seed 002's first program: a 1D, 2D or 3D grid of work-groups, each
 * work-item writing who it is (src/workloads/dispatch.c). ids holds four
 * uints a work-item, at its flattened global index
 * i = x + X * (y + Y * z) (X, Y: the global size): i itself, its group's
 * flattened index, its flattened index within the group, and its place in
 * dispatch order (group-major: group * items a group + local index), which
 * is not i once a group spans more than one row. kernels/dispatch.comp is
 * the same for Vulkan. */

__kernel void dispatch_ids(__global uint *ids) {
    const size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    const size_t i = x + get_global_size(0) * (y + get_global_size(1) * z);
    const size_t group = get_group_id(0) +
                         get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2));
    const size_t lid = get_local_id(0) +
                       get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2));
    const size_t items = get_local_size(0) * get_local_size(1) * get_local_size(2);
    ids[4 * i] = (uint)i;
    ids[4 * i + 1] = (uint)group;
    ids[4 * i + 2] = (uint)lid;
    ids[4 * i + 3] = (uint)(group * items + lid);
}
