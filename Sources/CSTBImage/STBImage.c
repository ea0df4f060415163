#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_GIF
#define STBI_NO_STDIO
#define STBI_FAILURE_USERMSG
#include <stb/stb_image.h>

#include "STBImage.h"

int xkcd_image_info(const unsigned char *bytes, int length, int *width, int *height) {
    int channels = 0;
    return stbi_info_from_memory(bytes, length, width, height, &channels);
}

unsigned char *xkcd_image_decode_rgba(const unsigned char *bytes, int length, int *width, int *height) {
    int channels = 0;
    return stbi_load_from_memory(bytes, length, width, height, &channels, 4);
}

const char *xkcd_image_failure_reason(void) {
    const char *reason = stbi_failure_reason();
    return reason ? reason : "unknown";
}

void xkcd_image_free(void *pixels) {
    stbi_image_free(pixels);
}

unsigned char *xkcd_gif_frames(const unsigned char *bytes, int length, int every, int max_kept, int max_read,
                               int *width, int *height, int *kept) {
    *kept = 0;
    stbi__context context;
    stbi__start_mem(&context, bytes, length);
    if (every < 1 || max_kept < 1 || !stbi__gif_test(&context)) return NULL;
    stbi__gif gif;
    memset(&gif, 0, sizeof(gif));
    unsigned char *out = NULL, *previous = NULL, *two_back = NULL;
    size_t stride = 0;
    int components = 0;
    for (int read = 0; read < max_read && *kept < max_kept; read++) {
        unsigned char *frame = stbi__gif_load_next(&context, &gif, &components, 4, two_back);
        // stb_image returns the context itself after the last frame.
        if (frame == (unsigned char *)&context || frame == NULL) break;
        if (stride == 0) {
            *width = gif.w;
            *height = gif.h;
            stride = (size_t)gif.w * (size_t)gif.h * 4;
            out = malloc(stride * (size_t)max_kept);
            previous = malloc(stride);
            two_back = malloc(stride);
            if (!out || !previous || !two_back) {
                free(out);
                out = NULL;
                break;
            }
        }
        if (read % every == 0) memcpy(out + stride * (size_t)(*kept)++, frame, stride);
        // The frame two back is what a frame "restored to previous" draws on.
        memcpy(two_back, previous, stride);
        memcpy(previous, frame, stride);
    }
    free(previous);
    free(two_back);
    STBI_FREE(gif.out);
    STBI_FREE(gif.history);
    STBI_FREE(gif.background);
    if (*kept == 0) {
        free(out);
        return NULL;
    }
    return out;
}

void xkcd_gif_frames_free(void *frames) {
    free(frames);
}
