/* cairo for olive-analyze plot, loaded at run time (dlopen), so that
 * olive-analyze starts and runs every other subcommand on a machine without
 * libcairo (a GPU node, a minimal container); only `plot` needs it, and says
 * so clearly when it is missing. Building still needs cairo's headers.
 *
 * Every cairo function the plot files call is listed in ANA_CAIRO_FUNCS; after
 * this header a call cairo_f(...) goes through the table filled by
 * ana_cairo_load(). A plot file that calls a cairo function missing from
 * the list fails to link (olive-analyze is not linked with -lcairo): add it. */
#ifndef OLIVE_ANALYZE_CAIRO_LOAD_H
#define OLIVE_ANALYZE_CAIRO_LOAD_H
#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>

#define ANA_CAIRO_FUNCS(X) \
    X(cairo_clip) X(cairo_create) X(cairo_debug_reset_static_data) \
    X(cairo_destroy) X(cairo_fill) X(cairo_get_source) \
    X(cairo_image_surface_create) X(cairo_image_surface_get_data) X(cairo_image_surface_get_stride) \
    X(cairo_line_to) X(cairo_move_to) X(cairo_paint) \
    X(cairo_pattern_set_filter) X(cairo_pdf_surface_create_for_stream) X(cairo_rectangle) \
    X(cairo_restore) X(cairo_rotate) X(cairo_save) \
    X(cairo_scale) X(cairo_select_font_face) X(cairo_set_font_size) \
    X(cairo_set_line_join) X(cairo_set_line_width) X(cairo_set_source_rgb) \
    X(cairo_set_source_rgba) X(cairo_set_source_surface) X(cairo_show_text) \
    X(cairo_status) X(cairo_status_to_string) X(cairo_stroke) \
    X(cairo_surface_destroy) X(cairo_surface_finish) X(cairo_surface_flush) \
    X(cairo_surface_mark_dirty) X(cairo_surface_status) X(cairo_surface_write_to_png_stream) \
    X(cairo_svg_surface_create_for_stream) X(cairo_text_extents) X(cairo_translate)

#define ANA_CAIRO_FIELD(f) __typeof__(&f) p_##f;
struct ana_cairo_table {
    ANA_CAIRO_FUNCS(ANA_CAIRO_FIELD)
};
#undef ANA_CAIRO_FIELD
extern struct ana_cairo_table ana_cairo;

/* Open libcairo.so.2 (or $OLIVE_CAIRO_LIB) and fill the table; dies with a
 * clear message (exit 2) when the library or a function is missing. */
void ana_cairo_load(void);

#ifndef ANA_CAIRO_NO_RENAME
#define cairo_clip ana_cairo.p_cairo_clip
#define cairo_create ana_cairo.p_cairo_create
#define cairo_debug_reset_static_data ana_cairo.p_cairo_debug_reset_static_data
#define cairo_destroy ana_cairo.p_cairo_destroy
#define cairo_fill ana_cairo.p_cairo_fill
#define cairo_get_source ana_cairo.p_cairo_get_source
#define cairo_image_surface_create ana_cairo.p_cairo_image_surface_create
#define cairo_image_surface_get_data ana_cairo.p_cairo_image_surface_get_data
#define cairo_image_surface_get_stride ana_cairo.p_cairo_image_surface_get_stride
#define cairo_line_to ana_cairo.p_cairo_line_to
#define cairo_move_to ana_cairo.p_cairo_move_to
#define cairo_paint ana_cairo.p_cairo_paint
#define cairo_pattern_set_filter ana_cairo.p_cairo_pattern_set_filter
#define cairo_pdf_surface_create_for_stream ana_cairo.p_cairo_pdf_surface_create_for_stream
#define cairo_rectangle ana_cairo.p_cairo_rectangle
#define cairo_restore ana_cairo.p_cairo_restore
#define cairo_rotate ana_cairo.p_cairo_rotate
#define cairo_save ana_cairo.p_cairo_save
#define cairo_scale ana_cairo.p_cairo_scale
#define cairo_select_font_face ana_cairo.p_cairo_select_font_face
#define cairo_set_font_size ana_cairo.p_cairo_set_font_size
#define cairo_set_line_join ana_cairo.p_cairo_set_line_join
#define cairo_set_line_width ana_cairo.p_cairo_set_line_width
#define cairo_set_source_rgb ana_cairo.p_cairo_set_source_rgb
#define cairo_set_source_rgba ana_cairo.p_cairo_set_source_rgba
#define cairo_set_source_surface ana_cairo.p_cairo_set_source_surface
#define cairo_show_text ana_cairo.p_cairo_show_text
#define cairo_status ana_cairo.p_cairo_status
#define cairo_status_to_string ana_cairo.p_cairo_status_to_string
#define cairo_stroke ana_cairo.p_cairo_stroke
#define cairo_surface_destroy ana_cairo.p_cairo_surface_destroy
#define cairo_surface_finish ana_cairo.p_cairo_surface_finish
#define cairo_surface_flush ana_cairo.p_cairo_surface_flush
#define cairo_surface_mark_dirty ana_cairo.p_cairo_surface_mark_dirty
#define cairo_surface_status ana_cairo.p_cairo_surface_status
#define cairo_surface_write_to_png_stream ana_cairo.p_cairo_surface_write_to_png_stream
#define cairo_svg_surface_create_for_stream ana_cairo.p_cairo_svg_surface_create_for_stream
#define cairo_text_extents ana_cairo.p_cairo_text_extents
#define cairo_translate ana_cairo.p_cairo_translate
#endif
#endif
