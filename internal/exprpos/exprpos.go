// Package exprpos says where in its source an expr-lang expression went
// wrong, as "line L, column C: …": site conditions (internal/adaptive) and
// custom merge rules (internal/mergerules) report their refusals alike.
package exprpos

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/expr-lang/expr/file"
)

// At is msg prefixed with the line and column of rune offset from of src.
func At(src string, from int, msg string) string {
	line, col := 1, 1
	i := 0
	for _, r := range src {
		if i == from {
			break
		}
		i++
		if r == '\n' {
			line, col = line+1, 1
			continue
		}
		col++
	}
	return fmt.Sprintf("line %d, column %d: %s", line, col, msg)
}

// Of is the rune offset in src and the message of an error of expr's
// parser or checker. The checker's verdict on the whole expression
// ("expected bool, but got int") has no position: it is about the
// expression from its start (0).
func Of(src string, err error) (from int, msg string) {
	var fe *file.Error
	if errors.As(err, &fe) {
		return max(0, min(fe.From, utf8.RuneCountInString(src))), fe.Message
	}
	return 0, err.Error()
}
