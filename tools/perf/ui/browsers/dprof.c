// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof report TUI: the data profile, one row per type; Enter drills
 * into a type's members and code locations, and keys switch to its miss
 * classification, working set and data flow.
 *
 * Every view is rendered by the stdio printers (through the callbacks of
 * struct dprof_browser) into lines that the browser pages through, so the
 * TUI and --stdio always show the same numbers.  The data flow tree folds
 * by indentation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ttydefaults.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "ui/browser.h"
#include "ui/helpline.h"
#include "ui/keysyms.h"
#include "ui/ui.h"
#include "ui/util.h"
#include "util/color.h"
#include "util/debug.h"
#include "dprof.h"

#define DPROF_HSCROLL	8

/**
 * struct dprof_line - one line of a rendered view
 * @text: the line, without its newline
 * @depth: leading blanks, the tree level; -1 for a '#' comment line
 * @has_children: a deeper line follows it (the flow tree)
 * @folded: its deeper lines are hidden
 */
struct dprof_line {
	char	*text;
	int	depth;
	bool	has_children;
	bool	folded;
};

/**
 * struct dprof_text - a view rendered into lines
 * @buf: the text, split in place into @lines
 * @size: of @buf
 * @lines: every line
 * @shown: the lines not hidden by a fold; the browser's entries
 * @nr: of @lines
 * @nr_shown: of @shown
 * @color: perf_use_color_default while rendering, restored after
 */
struct dprof_text {
	char			*buf;
	size_t			size;
	struct dprof_line	*lines;
	struct dprof_line	**shown;
	u32			nr;
	u32			nr_shown;
	int			color;
};

/**
 * struct dprof_text_browser - pages through a struct dprof_text
 * @b: the browser, its entries are @text.shown
 * @text: what it shows
 * @offset: horizontal scroll, in characters
 * @tree: fold the lines by indentation (+/- marks)
 * @search: the last string searched for
 */
struct dprof_text_browser {
	struct ui_browser	b;
	struct dprof_text	text;
	unsigned int		offset;
	bool			tree;
	char			search[128];
};

static const char * const dprof_view_names[] = {
	[DPROF_BROWSER_MEMBERS]		= "Members",
	[DPROF_BROWSER_CLASSIFY]	= "Miss classification",
	[DPROF_BROWSER_WORKINGSET]	= "Working set",
	[DPROF_BROWSER_FLOW]		= "Data flow",
	[DPROF_BROWSER_PATHS]		= "Path traces",
	[DPROF_BROWSER_HEADER]		= "Recording",
};

static const char dprof_profile_help[] =
	"Data profile: one row per data type, most sampled first\n"
	"\n"
	"UP/DOWN/PGUP/PGDN/HOME/END  Move\n"
	"LEFT/RIGHT    Scroll horizontally\n"
	"ENTER/m       The type by member and code location\n"
	"c             The type's miss classification\n"
	"w             The type's working set, associativity set histogram\n"
	"f             The type's data flow (needs record --watch)\n"
	"p             The type's path traces (needs record --watch)\n"
	"C/W           Miss classification/working set of all types\n"
	"i             What the recording held (the --stdio header)\n"
	"/             Search a type; n/N: next/previous match\n"
	"h/?/F1        Show this window\n"
	"q/ESC/CTRL+C  Exit";

static const char dprof_text_help[] =
	"UP/DOWN/PGUP/PGDN/HOME/END  Move\n"
	"LEFT/RIGHT    Scroll horizontally (LEFT at the margin: back)\n"
	"ENTER/+       Fold or unfold a subtree (data flow)\n"
	"E/C           Expand/collapse the whole tree (data flow)\n"
	"m c w f p     This type's members, miss classification, working set,\n"
	"              data flow, path traces\n"
	"/             Search; n/N: next/previous match\n"
	"h/?/F1        Show this window\n"
	"q/ESC         Back to the data profile";

/* ---------------------------------------------------------------------- */
/* rendered text                                                           */

static FILE *dprof_text__open(struct dprof_text *t)
{
	FILE *fp;

	memset(t, 0, sizeof(*t));
	fp = open_memstream(&t->buf, &t->size);
	if (!fp)
		return NULL;
	/* no escape sequences from color_fprintf() in the text */
	t->color = perf_use_color_default;
	perf_use_color_default = 0;
	return fp;
}

static void dprof_text__exit(struct dprof_text *t)
{
	zfree(&t->lines);
	zfree(&t->shown);
	zfree(&t->buf);
	t->nr = 0;
	t->nr_shown = 0;
}

/* The lines not inside a folded subtree. */
static void dprof_text__update(struct dprof_text *t)
{
	int hide_below = -1;
	u32 i;

	t->nr_shown = 0;
	for (i = 0; i < t->nr; i++) {
		struct dprof_line *l = &t->lines[i];

		if (hide_below >= 0 && l->depth > hide_below)
			continue;
		hide_below = -1;
		t->shown[t->nr_shown++] = l;
		if (l->folded && l->has_children)
			hide_below = l->depth;
	}
}

/* Close the stream @fp from dprof_text__open() and split it into lines. */
static int dprof_text__close(struct dprof_text *t, FILE *fp, int err)
{
	char *pos, *nl;
	u32 i, n = 0;

	fclose(fp);
	perf_use_color_default = t->color;
	if (err || !t->buf) {
		dprof_text__exit(t);
		return err ?: -ENOMEM;
	}
	for (pos = t->buf; *pos; pos = nl + 1) {
		n++;
		nl = strchrnul(pos, '\n');
		if (!*nl)
			break;
	}
	t->lines = calloc(n + 1, sizeof(*t->lines));
	t->shown = calloc(n + 1, sizeof(*t->shown));
	if (!t->lines || !t->shown) {
		dprof_text__exit(t);
		return -ENOMEM;
	}
	for (pos = t->buf; *pos && t->nr < n; pos = nl + 1) {
		struct dprof_line *l = &t->lines[t->nr++];
		char *tab;
		bool last;

		nl = strchrnul(pos, '\n');
		last = !*nl;
		*nl = '\0';
		while ((tab = strchr(pos, '\t')) != NULL)	/* the browser draws no tabs */
			*tab = ' ';
		l->text = pos;
		l->depth = *pos == '#' ? -1 : (int)strspn(pos, " ");
		if (last)
			break;
	}
	/* a printer's leading blank line would take the cursor */
	while (t->nr > 1 && !*t->lines[0].text) {
		t->nr--;
		memmove(t->lines, t->lines + 1, t->nr * sizeof(*t->lines));
	}
	for (i = 0; i + 1 < t->nr; i++) {
		struct dprof_line *l = &t->lines[i];

		l->has_children = l->depth >= 0 && t->lines[i + 1].depth > l->depth;
	}
	dprof_text__update(t);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* line browser                                                            */

static void dprof_browser__seek(struct ui_browser *b, off_t offset, int whence)
{
	struct dprof_line **lines = b->entries;

	switch (whence) {
	case SEEK_SET:
		b->top = lines + offset;
		break;
	case SEEK_CUR:
		b->top = (struct dprof_line **)b->top + offset;
		break;
	case SEEK_END:
		b->top = lines + b->nr_entries - 1 + offset;
		break;
	default:
		break;
	}
}

/* Put the cursor on entry @idx, scrolling when it is off the screen. */
static void dprof_browser__goto(struct ui_browser *b, u32 idx)
{
	b->index = idx;
	if (idx < b->top_idx || idx >= b->top_idx + b->rows) {
		b->top_idx = idx > b->rows / 2 ? idx - b->rows / 2 : 0;
		b->seek(b, b->top_idx, SEEK_SET);
	}
}

/* Move to the next (@dir 1) or previous (-1) entry containing @str. */
static bool dprof_browser__search(struct ui_browser *b, const char *str,
				  int dir)
{
	struct dprof_line **lines = b->entries;
	u32 n = b->nr_entries, k, i;

	if (!*str || !n)
		return false;
	for (k = 1; k <= n; k++) {
		i = (b->index + n + dir * k) % n;
		if (strcasestr(lines[i]->text, str)) {
			dprof_browser__goto(b, i);
			return true;
		}
	}
	ui_helpline__printf("'%s' not found", str);
	return false;
}

static bool dprof_browser__search_window(struct ui_browser *b, char *str,
					 size_t sz)
{
	char buf[128] = "";

	if (ui_browser__input_window("Search", "String: ", buf,
				     "ENTER: OK, ESC: Cancel", 0) != K_ENTER ||
	    !*buf)
		return false;
	snprintf(str, sz, "%s", buf);
	return dprof_browser__search(b, str, 1);
}

static void dprof_text_browser__write(struct ui_browser *b, void *entry,
				      int row)
{
	struct dprof_text_browser *tb = container_of(b, struct dprof_text_browser, b);
	struct dprof_line *l = *(struct dprof_line **)entry;
	bool current = ui_browser__is_current_entry(b, row);
	size_t len = strlen(l->text);
	int width = b->width;

	ui_browser__set_color(b, current ? HE_COLORSET_SELECTED :
				 l->depth < 0 ? HE_COLORSET_ROOT :
				 HE_COLORSET_NORMAL);
	if (tb->tree) {
		ui_browser__printf(b, "%c ", !l->has_children ? ' ' :
				   l->folded ? '+' : '-');
		width -= 2;
	}
	ui_browser__write_nstring(b, tb->offset < len ? l->text + tb->offset : "",
				  width);
}

static void dprof_text_browser__fold(struct dprof_text_browser *tb, int how)
{
	struct dprof_text *t = &tb->text;
	struct dprof_line *cur;
	u32 i, idx;

	if (!tb->tree || !tb->b.nr_entries)
		return;
	cur = t->shown[tb->b.index];
	if (how) {		/* 1: expand all, -1: collapse below the top level */
		for (i = 0; i < t->nr; i++)
			t->lines[i].folded = how < 0 && t->lines[i].depth > 0;
	} else {
		cur->folded = !cur->folded;
	}
	dprof_text__update(t);
	ui_browser__update_nr_entries(&tb->b, t->nr_shown);
	/* the cursor stays on its line, or on the fold that hides it */
	for (i = 0, idx = 0; i < t->nr_shown && t->shown[i] <= cur; i++)
		idx = i;
	dprof_browser__goto(&tb->b, idx);
}

static bool dprof_key__view(int key, enum dprof_browser_view *view)
{
	switch (key) {
	case K_ENTER:
	case 'm':
		*view = DPROF_BROWSER_MEMBERS;
		return true;
	case 'c':
		*view = DPROF_BROWSER_CLASSIFY;
		return true;
	case 'w':
		*view = DPROF_BROWSER_WORKINGSET;
		return true;
	case 'f':
		*view = DPROF_BROWSER_FLOW;
		return true;
	case 'p':
		*view = DPROF_BROWSER_PATHS;
		return true;
	default:
		return false;
	}
}

/*
 * Page through @tb->text; return the key that leaves: 'q' to go back to
 * the profile, or a view key (m c w f p) to switch views of the same type.
 */
static int dprof_text_browser__run(struct dprof_text_browser *tb,
				   const char *title)
{
	struct ui_browser *b = &tb->b;
	enum dprof_browser_view view;
	u32 idx;
	int key;

	b->entries = tb->text.shown;
	b->nr_entries = tb->text.nr_shown;
	b->index = 0;
	b->top_idx = 0;
	b->top = NULL;
	b->refresh = ui_browser__argv_refresh;
	b->seek = dprof_browser__seek;
	b->write = dprof_text_browser__write;
	b->seek(b, 0, SEEK_SET);
	if (ui_browser__show(b, title, "%s  m c w f p: views  /: search  q/ESC: back  ?: help",
			     tb->tree ? "ENTER/+: fold" : "LEFT/RIGHT: scroll") < 0)
		return -1;

	/* a tree: the cursor on its root, past the comment lines */
	for (idx = 0; tb->tree && idx + 1 < b->nr_entries &&
	     tb->text.shown[idx]->depth < 0; idx++)
		;
	dprof_browser__goto(b, idx);

	while (1) {
		key = ui_browser__run(b, 0);

		switch (key) {
		case K_RIGHT:
			tb->offset += DPROF_HSCROLL;
			continue;
		case K_LEFT:
			if (!tb->offset) {
				key = 'q';
				break;
			}
			tb->offset -= min_t(unsigned int, tb->offset, DPROF_HSCROLL);
			continue;
		case K_ENTER:
		case '+':
		case '-':
			if (!tb->tree)
				break;
			dprof_text_browser__fold(tb, 0);
			continue;
		case 'E':
			dprof_text_browser__fold(tb, 1);
			continue;
		case 'C':
			dprof_text_browser__fold(tb, -1);
			continue;
		case '/':
			dprof_browser__search_window(b, tb->search, sizeof(tb->search));
			continue;
		case 'n':
		case 'N':
			dprof_browser__search(b, tb->search, key == 'n' ? 1 : -1);
			continue;
		case K_F1:
		case 'h':
		case '?':
			ui_browser__help_window(b, dprof_text_help);
			continue;
		case K_ESC:
		case 'q':
		case CTRL('c'):
			key = 'q';
			break;
		default:
			if (dprof_key__view(key, &view))
				break;
			continue;
		}
		break;
	}
	ui_browser__hide(b);
	return key;
}

/*
 * Show @view of @row; the view keys switch to another view of the same
 * row, until the user goes back.
 */
static int dprof_browser__view(const struct dprof_browser *db, size_t row,
			       enum dprof_browser_view view)
{
	struct dprof_text_browser tb;
	char title[256];
	FILE *fp;
	int key, err;

	while (1) {
		memset(&tb, 0, sizeof(tb));
		tb.tree = view == DPROF_BROWSER_FLOW;
		fp = dprof_text__open(&tb.text);
		if (!fp)
			return -ENOMEM;
		err = db->fprintf_view(db->ctx, row, view, fp);
		err = dprof_text__close(&tb.text, fp, err);
		if (err) {
			ui__error("dprof: cannot show the %s view: %s\n",
				  dprof_view_names[view], strerror(-err));
			return err;
		}
		if (view == DPROF_BROWSER_HEADER)
			snprintf(title, sizeof(title), "%s: %s",
				 dprof_view_names[view], db->input);
		else
			snprintf(title, sizeof(title), "%s: %s", dprof_view_names[view],
				 row == DPROF_BROWSER_ALL ? "all types" :
				 db->row_name(db->ctx, row));
		key = dprof_text_browser__run(&tb, title);
		dprof_text__exit(&tb.text);

		if (key == 'q' || key < 0 || !dprof_key__view(key, &view))
			return 0;
		/* all types: only the tables that have them all */
		if (row == DPROF_BROWSER_ALL && view != DPROF_BROWSER_CLASSIFY &&
		    view != DPROF_BROWSER_WORKINGSET)
			return 0;
	}
}

/* ---------------------------------------------------------------------- */
/* the data profile                                                        */

/**
 * struct dprof_profile_browser - the data profile, one entry per row
 * @b: the browser, its entries are @text.shown
 * @db: where the rows come from
 * @text: the rows as --stdio prints them
 * @columns: the column header
 * @offset: horizontal scroll
 * @search: the last string searched for
 */
struct dprof_profile_browser {
	struct ui_browser		b;
	const struct dprof_browser	*db;
	struct dprof_text		text;
	struct dprof_text		columns;
	unsigned int			offset;
	char				search[128];
};

static void dprof_profile_browser__write(struct ui_browser *b, void *entry,
					 int row)
{
	struct dprof_profile_browser *pb = container_of(b, struct dprof_profile_browser, b);
	struct dprof_line *l = *(struct dprof_line **)entry;
	size_t len = strlen(l->text);

	ui_browser__set_color(b, ui_browser__is_current_entry(b, row) ?
			      HE_COLORSET_SELECTED : HE_COLORSET_NORMAL);
	ui_browser__write_nstring(b, pb->offset < len ? l->text + pb->offset : "",
				  b->width);
}

static unsigned int dprof_profile_browser__refresh(struct ui_browser *b)
{
	struct dprof_profile_browser *pb = container_of(b, struct dprof_profile_browser, b);
	const char *cols = pb->columns.nr ? pb->columns.lines[0].text : "";

	/* the column header, under the title (a view may have drawn there) */
	ui_browser__gotorc_title(b, 0, 0);
	ui_browser__set_color(b, HE_COLORSET_ROOT);
	ui_browser__write_nstring(b, pb->offset < strlen(cols) ? cols + pb->offset : "",
				  b->width + 1);
	return ui_browser__argv_refresh(b);
}

static int dprof_profile_browser__render(struct dprof_profile_browser *pb)
{
	const struct dprof_browser *db = pb->db;
	int err = 0;
	size_t i;
	FILE *fp;

	fp = dprof_text__open(&pb->columns);
	if (!fp)
		return -ENOMEM;
	err = dprof_text__close(&pb->columns, fp, db->fprintf_columns(db->ctx, fp));
	if (err)
		return err;

	fp = dprof_text__open(&pb->text);
	if (!fp)
		return -ENOMEM;
	for (i = 0; i < db->nr_rows && !err; i++)
		err = db->fprintf_row(db->ctx, i, fp);
	err = dprof_text__close(&pb->text, fp, err);
	if (!err && pb->text.nr != db->nr_rows)	/* one line per row */
		err = -EINVAL;
	return err;
}

static int dprof_profile_browser__show(struct dprof_profile_browser *pb)
{
	char title[320];

	if (pb->db->status)
		snprintf(title, sizeof(title), "Data profile: %s, %zu types; %s",
			 pb->db->input, pb->db->nr_rows, pb->db->status);
	else
		snprintf(title, sizeof(title),
			 "Data profile: %s, %zu types (ENTER: members, c w f: views)",
			 pb->db->input, pb->db->nr_rows);
	return ui_browser__show(&pb->b, title,
				"ENTER: members  c: misses  w: working set  f: flow  i: header  /: search  ?: help");
}

/* Back from a view: its title and help line were ours. */
static int dprof_profile_browser__reshow(struct dprof_profile_browser *pb)
{
	ui_browser__hide(&pb->b);
	return dprof_profile_browser__show(pb);
}

/**
 * dprof_browser__run - browse the data profile and the views of its types
 * @db: the rows and the printers of the views
 *
 * Return: 0, or a negative errno.
 */
int dprof_browser__run(const struct dprof_browser *db)
{
	struct dprof_profile_browser pb = {
		.b = {
			.refresh	= dprof_profile_browser__refresh,
			.seek		= dprof_browser__seek,
			.write		= dprof_profile_browser__write,
			.extra_title_lines = 1,
			.no_samples_msg	= "No access sample resolved to a data type",
		},
		.db = db,
	};
	struct ui_browser *b = &pb.b;
	enum dprof_browser_view view;
	int key, err;

	err = dprof_profile_browser__render(&pb);
	if (err)
		goto out;
	b->entries = pb.text.shown;
	b->nr_entries = pb.text.nr_shown;
	b->seek(b, 0, SEEK_SET);

	if (dprof_profile_browser__show(&pb) < 0) {
		err = -1;
		goto out;
	}
	if (db->start) {	/* --type, --view: that view first */
		if (db->start_row != DPROF_BROWSER_ALL && db->start_row < b->nr_entries)
			dprof_browser__goto(b, db->start_row);
		dprof_browser__view(db, db->start_row, db->start_view);
		if (dprof_profile_browser__reshow(&pb) < 0) {
			err = -1;
			goto out;
		}
	}

	while (1) {
		key = ui_browser__run(b, 0);

		switch (key) {
		case K_RIGHT:
			pb.offset += DPROF_HSCROLL;
			continue;
		case K_LEFT:
			pb.offset -= min_t(unsigned int, pb.offset, DPROF_HSCROLL);
			continue;
		case 'C':
		case 'W':
			dprof_browser__view(db, DPROF_BROWSER_ALL, key == 'C' ?
					    DPROF_BROWSER_CLASSIFY :
					    DPROF_BROWSER_WORKINGSET);
			break;
		case 'i':
			dprof_browser__view(db, DPROF_BROWSER_ALL, DPROF_BROWSER_HEADER);
			break;
		case '/':
			dprof_browser__search_window(b, pb.search, sizeof(pb.search));
			continue;
		case 'n':
		case 'N':
			dprof_browser__search(b, pb.search, key == 'n' ? 1 : -1);
			continue;
		case K_F1:
		case 'h':
		case '?':
			ui_browser__help_window(b, dprof_profile_help);
			continue;
		case K_ESC:
		case 'q':
		case CTRL('c'):
			goto out_hide;
		default:
			if (!dprof_key__view(key, &view) || !b->nr_entries)
				continue;
			dprof_browser__view(db, b->index, view);
			break;
		}
		if (dprof_profile_browser__reshow(&pb) < 0) {
			err = -1;
			goto out;
		}
	}
out_hide:
	ui_browser__hide(b);
out:
	dprof_text__exit(&pb.text);
	dprof_text__exit(&pb.columns);
	return err;
}
