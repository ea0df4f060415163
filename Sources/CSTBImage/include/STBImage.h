// stb_image (Debian libstb-dev) compiled into this target, for XKCDImage only: PNG, JPEG and
// GIF (its first frame) decoded from memory to 8-bit RGBA. docs/images.md: why stb_image.

#ifndef XKCD_STB_IMAGE_H
#define XKCD_STB_IMAGE_H

/// Reads the format's header only: 1 and the size when the bytes are a PNG, JPEG or GIF.
int xkcd_image_info(const unsigned char *bytes, int length, int *width, int *height);

/// Decodes to RGBA, 4 bytes a pixel, rows packed; NULL when the bytes are damaged
/// (xkcd_image_failure_reason says why). Free with xkcd_image_free.
unsigned char *xkcd_image_decode_rgba(const unsigned char *bytes, int length, int *width, int *height);

/// stb_image's reason for the last failure on this thread: "bad png sig", "outofmem"…
const char *xkcd_image_failure_reason(void);

void xkcd_image_free(void *pixels);

/// The frames of an animated GIF, each composed as it is shown, RGBA: of the first `max_read`
/// frames every `every`-th (the first included), at most `max_kept`, one after another in one
/// buffer (`*kept` of them). NULL for bytes that are no GIF or hold no frame. Free with
/// xkcd_gif_frames_free. Frames are decoded one at a time, so a GIF of 10,000 frames costs the
/// memory of `max_kept + 2` frames, and the time of `max_read`.
unsigned char *xkcd_gif_frames(const unsigned char *bytes, int length, int every, int max_kept, int max_read,
                               int *width, int *height, int *kept);

void xkcd_gif_frames_free(void *frames);

#endif
