package importer

import (
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
)

// converterOptions resolve relative links against the page's site.
func converterOptions(domain string) []htmltomarkdown.ConvertOptionFunc {
	if domain == "" {
		return nil
	}
	return []htmltomarkdown.ConvertOptionFunc{htmltomarkdown.WithDomain(domain)}
}
