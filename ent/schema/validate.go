package schema

import (
	"fmt"
	"regexp"
)

var domainPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)

// validateEmailDomains accepts lower-case domain names such as "example.com".
func validateEmailDomains(domains []string) error {
	if len(domains) > 100 {
		return fmt.Errorf("at most 100 entries")
	}
	for _, d := range domains {
		if len(d) > 253 || !domainPattern.MatchString(d) {
			return fmt.Errorf("%q is not a lower-case domain name", d)
		}
	}
	return nil
}
