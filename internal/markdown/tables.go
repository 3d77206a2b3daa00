package markdown

import "strings"

// MaxTableCells bounds the cells of a page's tables, all tables together,
// each counted as its header's columns times its rows.
//
// goldmark fills every short row of a table up to the header's width, so a
// wide header over many one-character rows ("|\n") costs columns x rows: 8 KB
// of 1,000 columns over 2,000 rows makes two million cells (seconds of
// work). Written cells cost their bytes; only the filling is out of
// proportion, at up to ~40 cells per byte of input. The bound is on the page,
// not on each table, because a page of many tables just under a per-table
// bound would still make ~40 cells per byte (tens of millions in 1 MB). A
// column bound is not needed: a wide header alone costs its bytes.
//
// 100,000 cells is a real table filling the whole page bound (10,000 rows of
// 10 columns at ~10 bytes a cell is 1 MB); pages written by people hold tables
// of tens or hundreds of cells. goldmark and ToDocument spend about a
// microsecond a cell, so a page's tables cost at most a tenth of a second.
const MaxTableCells = 100_000

// tableOver is the table found to bring a page's tables beyond the bound: its
// header's line (0 when within the bound), its columns and rows as counted,
// and the page's cells with it.
type tableOver struct {
	line, columns, rows, cells int
}

// boundTables counts the cells of the tables goldmark may make of a
// normalised body, never fewer than it makes, and returns the body with the
// delimiter row of every table that would bring the count beyond limit
// escaped (a backslash where it starts, so goldmark reads the line as
// paragraph text and makes no table of it), and the first such table. The
// escape adds no line. Linear: each line is read at most twice.
//
// goldmark makes a table of a paragraph with a delimiter row ("|---|:-:|")
// below a header row of as many cells; the rows are the paragraph's lines
// after it, each filled or cut to the header's width. Without following
// containers, the scan takes as a delimiter row any line ending in delimiter
// characters (a container's marker may precede it) of at least two columns,
// as its header the line before, and as its rows every line after it up to a
// blank line, which ends every paragraph. Tables of one column are not
// counted: they make a cell a line at most.
func boundTables(src string, limit int) (string, tableOver) {
	var (
		b         strings.Builder
		copied    int // bytes of src already in b
		cells     int // counted so far, escaped tables left out
		first     tableOver
		prevBlank = true // the line before is blank, or there is none
		runEnd    = 0    // the line that ends the current stretch of non-blank lines, once known
		// The most columns of a table kept in the current stretch: its
		// lines to the stretch's end are counted at that width already.
		wide      int
		lineStart int
	)
	for lineNo := 1; lineStart <= len(src); lineNo++ {
		end := strings.IndexByte(src[lineStart:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += lineStart
		}
		line, lineOff := src[lineStart:end], lineStart
		lineStart = end + 1

		blank := isBlankLine(line)
		afterBlank := prevBlank
		prevBlank = blank
		if blank {
			wide = 0
		}
		if blank || afterBlank {
			continue // a delimiter row needs a header line above it in its paragraph
		}
		at, columns := delimiterRow(line)
		if columns <= max(wide, 1) {
			continue // within the width its lines are counted at
		}
		if runEnd <= lineNo {
			runEnd = stretchEnd(src, lineStart, lineNo+1)
		}
		// A line is in one table at most (a paragraph makes one, within a
		// stretch), so it costs at most the width of the widest table kept
		// above it: the lines from this header on are counted at wide
		// already, and cost columns-wide more.
		rows := runEnd - lineNo // the header and the lines after the delimiter row
		if more := int64(columns-wide) * int64(rows); more <= int64(limit-cells) {
			cells += int(more)
			wide = columns
			continue
		}
		if first.line == 0 {
			first = tableOver{line: lineNo - 1, columns: columns, rows: rows, cells: cells + (columns-wide)*rows}
		}
		if copied == 0 {
			b.Grow(len(src) + 64)
		}
		b.WriteString(src[copied : lineOff+at])
		b.WriteByte('\\')
		copied = lineOff + at
	}
	if copied == 0 {
		return src, first
	}
	b.WriteString(src[copied:])
	return b.String(), first
}

// stretchEnd is the number of the first blank line at or after offset (line
// number lineNo), or of the line after the last when none is.
func stretchEnd(src string, offset, lineNo int) int {
	for ; offset <= len(src); lineNo++ {
		end := strings.IndexByte(src[offset:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += offset
		}
		if isBlankLine(src[offset:end]) {
			return lineNo
		}
		offset = end + 1
	}
	return lineNo
}

// isBlankLine reports whether a line holds only spaces and tabs.
func isBlankLine(line string) bool {
	for i := 0; i < len(line); i++ {
		if line[i] != ' ' && line[i] != '\t' {
			return false
		}
	}
	return true
}

// isDelimiterByte reports whether c may be part of a delimiter row.
func isDelimiterByte(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '-', ':', '|':
		return true
	}
	return false
}

// delimiterRow reports where the delimiter characters ending a line start and
// how many columns a delimiter row among them has, counted as goldmark
// counts them (cells between pipes, a blank first and last left out), 0 when
// they cannot hold one. Whatever container markers lie before goldmark's
// row, its cells after the first pipe are these; its first cell is part of
// this first one, so the count is never lower than goldmark's.
func delimiterRow(line string) (at, columns int) {
	at = len(line)
	for at > 0 && isDelimiterByte(line[at-1]) {
		at--
	}
	head, rest, ok := strings.Cut(line[at:], "|")
	if !ok {
		return at, 0
	}
	if strings.Trim(head, " \t\r") != "" {
		columns++ // unchecked: it may end a container's marker ("- ---|---")
	}
	for {
		cell, more, ok := strings.Cut(rest, "|")
		if !ok && strings.Trim(cell, " \t\r") == "" {
			return at, columns // a blank last cell is left out
		}
		if !isAlignment(cell) {
			return at, 0
		}
		columns++
		if !ok {
			return at, columns
		}
		rest = more
	}
}

// isAlignment reports whether a delimiter row's cell is dashes with an
// optional colon at either end, and spaces around.
func isAlignment(cell string) bool {
	s := strings.Trim(cell, " \t\r")
	s = strings.TrimPrefix(s, ":")
	s = strings.TrimSuffix(s, ":")
	return s != "" && strings.Trim(s, "-") == ""
}
