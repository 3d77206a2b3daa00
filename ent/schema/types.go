package schema

// DefaultContent is what an organization shows by default: today a docs site
// ({"type": "site", "site": <id>}).
type DefaultContent struct {
	Type string `json:"type"`
	Site string `json:"site"`
}
