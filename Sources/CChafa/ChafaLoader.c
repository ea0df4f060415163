// The libchafa and GLib functions XKCDImage calls, defined here as forwarders to the library
// opened by xkcd_chafa_load. Hidden: were they exported, libchafa's own calls to them would land
// here.
// First, with their own visibility: a header of the library may include <pthread.h> again.
#include <pthread.h>
#include "CSharedLibrary.h"
#pragma GCC visibility push(hidden)
#include "CChafa.h"
#pragma GCC visibility pop

#define FUNCTIONS(X) \
    X(chafa_calc_canvas_geometry) X(chafa_canvas_config_new) X(chafa_canvas_config_set_canvas_mode) \
    X(chafa_canvas_config_set_cell_geometry) X(chafa_canvas_config_set_geometry) \
    X(chafa_canvas_config_set_pixel_mode) X(chafa_canvas_config_set_symbol_map) X(chafa_canvas_config_unref) \
    X(chafa_canvas_draw_all_pixels) X(chafa_canvas_new) X(chafa_canvas_print) X(chafa_canvas_unref) \
    X(chafa_symbol_map_add_by_tags) X(chafa_symbol_map_new) X(chafa_symbol_map_unref) \
    X(chafa_term_db_detect) X(chafa_term_db_get_default) X(chafa_term_db_get_fallback_info) \
    X(chafa_term_info_have_seq) X(chafa_term_info_supplement) X(chafa_term_info_unref) X(g_string_free)
XKCD_LIBRARY(FUNCTIONS, "libchafa.so.0", "XKCD_SEARCH_LIBCHAFA")

int xkcd_chafa_load(char *error, size_t size) { return xkcd_open_once(error, size); }

void chafa_calc_canvas_geometry(
    gint src_width, gint src_height, gint *width, gint *height, gfloat font_ratio, gboolean zoom, gboolean stretch) {
    XKCD_REAL(chafa_calc_canvas_geometry)(src_width, src_height, width, height, font_ratio, zoom, stretch);
}
ChafaCanvasConfig *chafa_canvas_config_new(void) { return XKCD_REAL(chafa_canvas_config_new)(); }
void chafa_canvas_config_set_canvas_mode(ChafaCanvasConfig *config, ChafaCanvasMode mode) {
    XKCD_REAL(chafa_canvas_config_set_canvas_mode)(config, mode);
}
void chafa_canvas_config_set_cell_geometry(ChafaCanvasConfig *config, gint width, gint height) {
    XKCD_REAL(chafa_canvas_config_set_cell_geometry)(config, width, height);
}
void chafa_canvas_config_set_geometry(ChafaCanvasConfig *config, gint width, gint height) {
    XKCD_REAL(chafa_canvas_config_set_geometry)(config, width, height);
}
void chafa_canvas_config_set_pixel_mode(ChafaCanvasConfig *config, ChafaPixelMode mode) {
    XKCD_REAL(chafa_canvas_config_set_pixel_mode)(config, mode);
}
void chafa_canvas_config_set_symbol_map(ChafaCanvasConfig *config, const ChafaSymbolMap *map) {
    XKCD_REAL(chafa_canvas_config_set_symbol_map)(config, map);
}
void chafa_canvas_config_unref(ChafaCanvasConfig *config) { XKCD_REAL(chafa_canvas_config_unref)(config); }
void chafa_canvas_draw_all_pixels(
    ChafaCanvas *canvas, ChafaPixelType type, const guint8 *pixels, gint width, gint height, gint rowstride) {
    XKCD_REAL(chafa_canvas_draw_all_pixels)(canvas, type, pixels, width, height, rowstride);
}
ChafaCanvas *chafa_canvas_new(const ChafaCanvasConfig *config) { return XKCD_REAL(chafa_canvas_new)(config); }
GString *chafa_canvas_print(ChafaCanvas *canvas, ChafaTermInfo *info) { return XKCD_REAL(chafa_canvas_print)(canvas, info); }
void chafa_canvas_unref(ChafaCanvas *canvas) { XKCD_REAL(chafa_canvas_unref)(canvas); }
void chafa_symbol_map_add_by_tags(ChafaSymbolMap *map, ChafaSymbolTags tags) {
    XKCD_REAL(chafa_symbol_map_add_by_tags)(map, tags);
}
ChafaSymbolMap *chafa_symbol_map_new(void) { return XKCD_REAL(chafa_symbol_map_new)(); }
void chafa_symbol_map_unref(ChafaSymbolMap *map) { XKCD_REAL(chafa_symbol_map_unref)(map); }
ChafaTermInfo *chafa_term_db_detect(ChafaTermDb *db, gchar **envp) { return XKCD_REAL(chafa_term_db_detect)(db, envp); }
ChafaTermDb *chafa_term_db_get_default(void) { return XKCD_REAL(chafa_term_db_get_default)(); }
ChafaTermInfo *chafa_term_db_get_fallback_info(ChafaTermDb *db) { return XKCD_REAL(chafa_term_db_get_fallback_info)(db); }
gboolean chafa_term_info_have_seq(const ChafaTermInfo *info, ChafaTermSeq seq) {
    return XKCD_REAL(chafa_term_info_have_seq)(info, seq);
}
void chafa_term_info_supplement(ChafaTermInfo *info, ChafaTermInfo *source) {
    XKCD_REAL(chafa_term_info_supplement)(info, source);
}
void chafa_term_info_unref(ChafaTermInfo *info) { XKCD_REAL(chafa_term_info_unref)(info); }
// GLib's, found through libchafa's handle (which loaded it).
gchar *g_string_free(GString *string, gboolean free_segment) { return XKCD_REAL(g_string_free)(string, free_segment); }
