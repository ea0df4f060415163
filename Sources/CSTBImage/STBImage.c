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
