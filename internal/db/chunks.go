package db

import (
	"fmt"
	"hash/fnv"
	"strings"

	"entgo.io/ent/dialect"
)

// Pages are stored in chunks that revisions share. A revision spreads its
// pages over B buckets (a power of two, Revision.buckets) by the hash of
// their page_id, and names for each bucket the chunk holding its pages
// (revision_chunks). A chunk is never changed once written: a revision that
// changes pages writes new chunks for the buckets of those pages only and
// names its parent's chunks for every other bucket. So a change of k pages
// writes about k chunks of ~32–64 rows and B map rows, whatever the space
// holds, and reads of a revision's pages join its map.

// Bucket is the bucket of a page among buckets (a power of two).
func Bucket(pageID string, buckets int) int {
	h := fnv.New32a()
	h.Write([]byte(pageID))
	return int(h.Sum32() & uint32(buckets-1))
}

// Buckets is the bucket count for a revision of n pages made from one with
// current buckets (0: none): current while its chunks hold 16–128 rows on
// average (1 bucket holds up to 128), otherwise the least power of two
// that gives chunks of at most 64 rows. A count changes only when the pages
// double or halve, so rewriting every chunk then costs O(1) per page added.
func Buckets(n, current int) int {
	if current >= 1 && n <= 128*current && (current == 1 || n >= 16*current) {
		return current
	}
	b := 1
	for b*64 < n {
		b *= 2
	}
	return b
}

func marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// CopyMap is the statement that gives revision to the chunks of revision
// from for every bucket but those of touched.
func CopyMap(dialectName, to, from string, touched []int) (string, []any) {
	q := "INSERT INTO revision_chunks (revision_id, bucket, chunk_id) SELECT ?, bucket, chunk_id FROM revision_chunks WHERE revision_id = ?"
	args := []any{to, from}
	if len(touched) > 0 {
		q += " AND bucket NOT IN (" + marks(len(touched)) + ")"
		for _, k := range touched {
			args = append(args, k)
		}
	}
	return Numbered(dialectName, q), args
}

// CopyChunkRows is the statement that copies into new chunks the rows of
// revision from's chunks of the buckets of newChunks (bucket → new chunk
// id), leaving out the pages of exclude: the rows of those buckets that the
// change keeps. Copies get fresh random row ids (20 hex digits).
func CopyChunkRows(dialectName, from string, newChunks map[int]string, exclude []string) (string, []any) {
	rowID := "lower(hex(randomblob(10)))"
	if dialectName == dialect.Postgres {
		rowID = "substr(md5(random()::text || clock_timestamp()::text || p.page_id), 1, 20)"
	}
	var cases strings.Builder
	var args []any
	buckets := make([]any, 0, len(newChunks))
	for k, c := range newChunks {
		cases.WriteString(" WHEN ? THEN ?")
		args = append(args, k, c)
		buckets = append(buckets, k)
	}
	q := "INSERT INTO pages (id, chunk_id, " + pageColumns + ") SELECT " + rowID + ", CASE m.bucket" + cases.String() + " END, " +
		prefixed("p.", pageColumns) + " FROM revision_chunks m JOIN pages p ON p.chunk_id = m.chunk_id WHERE m.revision_id = ? AND m.bucket IN (" +
		marks(len(buckets)) + ")"
	args = append(args, from)
	args = append(args, buckets...)
	if len(exclude) > 0 {
		q += " AND p.page_id NOT IN (" + marks(len(exclude)) + ")"
		for _, id := range exclude {
			args = append(args, id)
		}
	}
	return Numbered(dialectName, q), args
}

func prefixed(prefix, columns string) string {
	parts := strings.Split(columns, ", ")
	for i, c := range parts {
		parts[i] = prefix + c
	}
	return strings.Join(parts, ", ")
}

// RevisionChunks is the query of the (bucket, chunk_id) rows of revisions,
// with the revision: (revision_id, bucket, chunk_id).
func RevisionChunks(dialectName string, revs []string) (string, []any) {
	args := make([]any, len(revs))
	for i, r := range revs {
		args[i] = r
	}
	return Numbered(dialectName, fmt.Sprintf("SELECT revision_id, bucket, chunk_id FROM revision_chunks WHERE revision_id IN (%s)", marks(len(revs)))), args
}

// fileColumns are the columns of a file row other than its id and revision.
const fileColumns = "file_id, name, content_type, size, blob_key, width, height, created_at"

// CopyFiles is the statement that copies the file rows of revision from
// into revision to, leaving out the files of exclude: a new revision keeps
// its source's files without sending them through the application.
func CopyFiles(dialectName, to, from string, exclude []string) (string, []any) {
	rowID := "lower(hex(randomblob(10)))"
	if dialectName == dialect.Postgres {
		rowID = "substr(md5(random()::text || clock_timestamp()::text || file_id), 1, 20)"
	}
	q := "INSERT INTO files (id, revision_id, " + fileColumns + ") SELECT " + rowID + ", ?, " + fileColumns +
		" FROM files WHERE revision_id = ?"
	args := []any{to, from}
	if len(exclude) > 0 {
		q += " AND file_id NOT IN (" + marks(len(exclude)) + ")"
		for _, id := range exclude {
			args = append(args, id)
		}
	}
	return Numbered(dialectName, q), args
}
