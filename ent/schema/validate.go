package schema

import (
	"fmt"
	"regexp"
	"unicode/utf8"
)

// Validators with messages a caller can act on. Lengths count characters,
// not bytes, as the API documents them.

// length accepts strings of min to max characters.
func length(min, max int) func(string) error {
	return func(s string) error {
		n := utf8.RuneCountInString(s)
		if n < min || n > max {
			if min == 0 {
				return fmt.Errorf("must be at most %d characters (got %d)", max, n)
			}
			return fmt.Errorf("must be %d to %d characters (got %d)", min, max, n)
		}
		return nil
	}
}

// matches accepts strings matching re, described in words by what.
func matches(re *regexp.Regexp, what string) func(string) error {
	return func(s string) error {
		if !re.MatchString(s) {
			return fmt.Errorf("must be %s", what)
		}
		return nil
	}
}

// all combines validators, the first failure wins.
func all(vs ...func(string) error) func(string) error {
	return func(s string) error {
		for _, v := range vs {
			if err := v(s); err != nil {
				return err
			}
		}
		return nil
	}
}

var domainPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)

// validateEmailDomains accepts lower-case domain names such as "example.com".
func validateEmailDomains(domains []string) error {
	if len(domains) > 100 {
		return fmt.Errorf("must have at most 100 entries")
	}
	for _, d := range domains {
		if len(d) > 253 || !domainPattern.MatchString(d) {
			return fmt.Errorf("%q is not a domain name", d)
		}
	}
	return nil
}
