/* An outside program built against an installed clpool (pkg-config and
 * find_package): runs one MaxPool on host arrays and checks the result. */
#include <clpool/clpool.h>
#include <stdio.h>

int main(void)
{
    clpool_context *ctx = NULL;
    if (clpool_context_create(NULL, &ctx) != CLPOOL_SUCCESS) {
        fprintf(stderr, "consumer: %s\n", clpool_last_error());
        return 1;
    }
    const int64_t k[1] = {2};
    clpool_maxpool_params p;
    clpool_maxpool_params_init(&p, 1, k);
    const clpool_shape in = {3, {1, 1, 4}};
    const float x[4] = {1, 5, 2, 3};
    float y[3] = {0};
    int64_t idx[3] = {0};
    clpool_status st = clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &in, x, y, idx);
    clpool_context_release(ctx);
    if (st != CLPOOL_SUCCESS || y[0] != 5 || y[1] != 5 || y[2] != 3 || idx[0] != 1 || idx[2] != 3) {
        fprintf(stderr, "consumer: wrong result (%s)\n", clpool_last_error());
        return 1;
    }
    printf("consumer OK with clpool %s\n", clpool_version_string());
    return 0;
}
