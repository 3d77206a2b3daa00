package schemacompat

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
)

// LoadFiles reads a schema from GraphQL SDL files (as gqlgen.yml lists
// them: a glob such as schema/*.graphql).
func LoadFiles(glob string) (*ast.Schema, error) {
	paths, err := filepath.Glob(glob)
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var sources []*ast.Source
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sources = append(sources, &ast.Source{Name: p, Input: string(b)})
	}
	return gqlparser.LoadSchema(sources...)
}

// Print writes a schema as SDL without descriptions (they do not change
// what clients may send or read), for the committed snapshot.
func Print(s *ast.Schema) []byte {
	var buf bytes.Buffer
	formatter.NewFormatter(&buf, formatter.WithIndent("  "), formatter.WithoutDescription()).FormatSchema(s)
	return buf.Bytes()
}

// Acknowledged reads an acknowledgements file: one change key a line, then
// optional text (why, and since when); blank lines and lines starting with
// # are comments. A missing file acknowledges nothing.
func Acknowledged(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, _, _ := strings.Cut(line, " ")
		out[key] = true
	}
	return out, nil
}
