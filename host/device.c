/* Device enumeration, probing and the CLPOOL_DEVICE selection rule. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64
/* cl_ext.h spelling of the ICD loader's "no platform" code, without pulling in cl_ext.h. */
#define CLPOOL_PLATFORM_NOT_FOUND_KHR (-1001)

/* Flat list of (platform, device) over every platform, in platform order. */
typedef struct device_list {
    uint32_t count;
    cl_platform_id platform[MAX_DEVICES];
    cl_device_id device[MAX_DEVICES];
} device_list;

static clpool_status list_devices(device_list *list)
{
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint np = 0;
    list->count = 0;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, platforms, &np);
    if (err != CL_SUCCESS && err != CLPOOL_PLATFORM_NOT_FOUND_KHR) return clpool__cl_fail(err, "clGetPlatformIDs");
    if (err == CLPOOL_PLATFORM_NOT_FOUND_KHR || np == 0)
        return clpool__fail(CLPOOL_ERROR_NO_DEVICE, "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)");
    if (np > MAX_PLATFORMS) np = MAX_PLATFORMS;
    cl_int first_err = CL_SUCCESS;
    for (cl_uint p = 0; p < np; ++p) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        /* A platform whose devices cannot be listed is skipped; its error is the answer if no device is left. */
        const cl_int dev_err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd);
        if (dev_err != CL_SUCCESS) {
            if (dev_err != CL_DEVICE_NOT_FOUND && first_err == CL_SUCCESS) first_err = dev_err;
            continue;
        }
        for (cl_uint d = 0; d < nd && d < MAX_DEVICES && list->count < MAX_DEVICES; ++d) {
            list->platform[list->count] = platforms[p];
            list->device[list->count] = devs[d];
            list->count++;
        }
    }
    if (list->count == 0 && first_err != CL_SUCCESS) return clpool__cl_fail(first_err, "clGetDeviceIDs");
    if (list->count == 0) return clpool__fail(CLPOOL_ERROR_NO_DEVICE, "no OpenCL device found on %u platform(s)", np);
    return CLPOOL_SUCCESS;
}

static void get_string(cl_device_id dev, cl_device_info what, char *buf, size_t len)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(dev, what, len, buf, NULL) != CL_SUCCESS) buf[0] = '\0';
    buf[len - 1] = '\0';
}

clpool_status clpool__device_probe(cl_platform_id platform, cl_device_id device, clpool_device_info *info)
{
    memset(info, 0, sizeof *info);
    info->platform = platform;
    info->device = device;
    if (!platform) {
        cl_int err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
        if (err != CL_SUCCESS) return clpool__cl_fail(err, "clGetDeviceInfo(CL_DEVICE_PLATFORM)");
        info->platform = platform;
    }
    if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform_name, info->platform_name, NULL) != CL_SUCCESS)
        info->platform_name[0] = '\0';
    info->platform_name[sizeof info->platform_name - 1] = '\0';
    get_string(device, CL_DEVICE_NAME, info->device_name, sizeof info->device_name);
    get_string(device, CL_DEVICE_VERSION, info->device_version, sizeof info->device_version);
    get_string(device, CL_DEVICE_OPENCL_C_VERSION, info->opencl_c_version, sizeof info->opencl_c_version);
    get_string(device, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);

    cl_uint cu = 0, align = 0;
    cl_ulong mem = 0, alloc = 0, cache = 0;
    size_t wg = 0;
    cl_int err = clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof info->type, &info->type, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align, &align, NULL);
    if (err != CL_SUCCESS)
        return clpool__fail(CLPOOL_ERROR_OPENCL, "clGetDeviceInfo failed for device '%s': %s (%d)", info->device_name,
                            clpool__cl_error_name(err), (int)err);
    info->compute_units = cu;
    info->global_mem_bytes = mem;
    info->max_alloc_bytes = alloc;
    info->max_work_group_size = wg;
    info->mem_base_addr_align_bits = align;
    if (clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL) == CL_SUCCESS)
        info->cache_bytes = cache; /* optional: 0 where a driver does not say */

    /* Extensions can be long; ask for the size first. */
    size_t ext_len = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len) == CL_SUCCESS && ext_len > 0) {
        char *ext = malloc(ext_len + 1);
        if (!ext) return clpool__fail(CLPOOL_ERROR_OUT_OF_HOST_MEMORY, "out of host memory probing device");
        if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL) == CL_SUCCESS) {
            ext[ext_len] = '\0';
            info->has_fp16 = strstr(ext, "cl_khr_fp16") != NULL;
            info->has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
        }
        free(ext);
    }
    return CLPOOL_SUCCESS;
}

int clpool__cpu_device(cl_device_type type)
{
    return (type & CL_DEVICE_TYPE_CPU) && !(type & CL_DEVICE_TYPE_GPU);
}

clpool_status clpool_device_count(uint32_t *count)
{
    CLPOOL_REQUIRE_NOT_NULL(count, "clpool_device_count");
    device_list list;
    *count = 0;
    clpool_status status = list_devices(&list);
    if (status == CLPOOL_SUCCESS) *count = list.count;
    return status;
}

clpool_status clpool_device_get_info(uint32_t index, clpool_device_info *info)
{
    CLPOOL_REQUIRE_NOT_NULL(info, "clpool_device_get_info");
    device_list list;
    clpool_status status = list_devices(&list);
    if (status != CLPOOL_SUCCESS) return status;
    if (index >= list.count)
        return clpool__fail(CLPOOL_ERROR_NO_DEVICE, "clpool_device_get_info: device %u does not exist (%u devices)",
                            index, list.count);
    return clpool__device_probe(list.platform[index], list.device[index], info);
}

static int parse_uint(const char *s, uint32_t *out)
{
    if (!*s) return 0;
    char *end = NULL;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || v > 0xffffffffu || !isdigit((unsigned char)s[0])) return 0;
    *out = (uint32_t)v;
    return 1;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; ++hay) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) ++i;
        if (i == n) return 1;
    }
    return n == 0;
}

/* Resolve a device spec (see clpool_context_create) to a flat device index. */
static clpool_status match_spec(const device_list *list, const char *spec, uint32_t *index)
{
    uint32_t n, p, d;
    const char *colon = strchr(spec, ':');
    if (parse_uint(spec, &n)) {
        if (n >= list->count)
            return clpool__fail(CLPOOL_ERROR_NO_DEVICE, "device '%s' does not exist (%u devices)", spec, list->count);
        *index = n;
        return CLPOOL_SUCCESS;
    }
    if (colon) {
        char head[32];
        size_t hl = (size_t)(colon - spec);
        if (hl < sizeof head) {
            memcpy(head, spec, hl);
            head[hl] = '\0';
            if (parse_uint(head, &p) && parse_uint(colon + 1, &d)) {
                /* Walk the flat list counting platform changes. */
                uint32_t plat = 0, dev = 0;
                for (uint32_t i = 0; i < list->count; ++i) {
                    if (i > 0 && list->platform[i] != list->platform[i - 1]) { ++plat; dev = 0; }
                    if (plat == p && dev == d) { *index = i; return CLPOOL_SUCCESS; }
                    ++dev;
                }
                return clpool__fail(CLPOOL_ERROR_NO_DEVICE, "device '%s' (platform:device) does not exist", spec);
            }
        }
    }
    for (uint32_t i = 0; i < list->count; ++i) {
        clpool_device_info info;
        if (clpool__device_probe(list->platform[i], list->device[i], &info) != CLPOOL_SUCCESS) continue;
        char both[260];
        snprintf(both, sizeof both, "%s %s", info.platform_name, info.device_name);
        if (contains_nocase(both, spec)) { *index = i; return CLPOOL_SUCCESS; }
    }
    return clpool__fail(CLPOOL_ERROR_NO_DEVICE, "no OpenCL device matches '%s'", spec);
}

clpool_status clpool__select_device(const char *spec, cl_platform_id *platform, cl_device_id *device)
{
    device_list list;
    clpool_status status = list_devices(&list);
    if (status != CLPOOL_SUCCESS) return status;
    uint32_t index = 0;
    if (!spec || !*spec) spec = getenv("CLPOOL_DEVICE");
    if (spec && *spec) {
        status = match_spec(&list, spec, &index);
        if (status != CLPOOL_SUCCESS) return status;
    } else {
        for (uint32_t i = 0; i < list.count; ++i) {
            cl_device_type type = 0;
            if (clGetDeviceInfo(list.device[i], CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
                (type & CL_DEVICE_TYPE_GPU)) { index = i; break; }
        }
    }
    *platform = list.platform[index];
    *device = list.device[index];
    return CLPOOL_SUCCESS;
}
