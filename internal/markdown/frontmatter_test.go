package markdown

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want Meta
	}{
		{
			name: "all fields",
			src:  "---\ntitle: Getting started\ndescription: How to begin\nemoji: \"🚀\"\nhidden: true\n---\n\n# Intro\n\nText.\n",
			want: Meta{Title: "Getting started", Description: "How to begin", Emoji: "🚀", Hidden: true, Body: "# Intro\n\nText.\n"},
		},
		{
			name: "no frontmatter: title from the first heading",
			src:  "Some text\n\n## Second level first\n\n# Top\n",
			want: Meta{Title: "Second level first", Body: "Some text\n\n## Second level first\n\n# Top\n"},
		},
		{
			name: "frontmatter without title falls back to heading",
			src:  "---\ndescription: d\n---\n# Heading *with* `code`\n",
			want: Meta{Title: "Heading with code", Description: "d", Body: "# Heading *with* `code`\n"},
		},
		{
			name: "empty title falls back to heading",
			src:  "---\ntitle: \"\"\n---\nSetext\n======\n",
			want: Meta{Title: "Setext", Body: "Setext\n======\n"},
		},
		{
			name: "no heading, no title",
			src:  "just text",
			want: Meta{Body: "just text"},
		},
		{
			name: "empty",
			src:  "",
			want: Meta{},
		},
		{
			name: "CRLF input",
			src:  "---\r\ntitle: Windows\r\nhidden: false\r\n---\r\n\r\n# H\r\n\r\nline\r\n",
			want: Meta{Title: "Windows", Body: "# H\n\nline\n"},
		},
		{
			name: "byte order mark",
			src:  "\ufeff---\ntitle: BOM\n---\nx\n",
			want: Meta{Title: "BOM", Body: "x\n"},
		},
		{
			// As markdown it is a thematic break and a setext heading.
			name: "malformed YAML is body",
			src:  "---\ntitle: [unclosed\n---\n# Real\n",
			want: Meta{Title: "title: [unclosed", Body: "---\ntitle: [unclosed\n---\n# Real\n"},
		},
		{
			name: "scalar is not frontmatter",
			src:  "---\nJust a sentence\n---\n",
			want: Meta{Title: "Just a sentence", Body: "---\nJust a sentence\n---\n"},
		},
		{
			name: "unclosed frontmatter is body",
			src:  "---\ntitle: x\n\nText\n",
			want: Meta{Body: "---\ntitle: x\n\nText\n"},
		},
		{
			name: "not at the start is body",
			src:  "\n---\ntitle: x\n---\n",
			want: Meta{Title: "title: x", Body: "\n---\ntitle: x\n---\n"},
		},
		{
			name: "empty frontmatter",
			src:  "---\n---\nBody\n",
			want: Meta{Body: "Body\n"},
		},
		{
			name: "dots close, trailing spaces allowed",
			src:  "--- \ntitle: Dots\n...\nBody\n",
			want: Meta{Title: "Dots", Body: "Body\n"},
		},
		{
			name: "frontmatter only",
			src:  "---\ntitle: Only\n---\n",
			want: Meta{Title: "Only"},
		},
		{
			name: "numbers and other types read as text",
			src:  "---\ntitle: 2024\ndescription:\n  nested: map\nhidden: \"true\"\n---\n",
			want: Meta{Title: "2024"},
		},
		{
			name: "hidden yes",
			src:  "---\nhidden: yes\n---\n",
			want: Meta{Hidden: true},
		},
		{
			name: "icon that is an emoji",
			src:  "---\nicon: 👩‍💻\n---\n",
			want: Meta{Emoji: "👩‍💻"},
		},
		{
			name: "icon that is a name",
			src:  "---\nicon: rocket\n---\n",
			want: Meta{},
		},
		{
			name: "emoji wins over icon",
			src:  "---\nicon: 📘\nemoji: 📕\n---\n",
			want: Meta{Emoji: "📕"},
		},
		{
			name: "keys are case-insensitive",
			src:  "---\nTitle: Upper\n---\n",
			want: Meta{Title: "Upper"},
		},
		{
			name: "body keeps indentation of its first line",
			src:  "---\ntitle: t\n---\n\n    code\n",
			want: Meta{Title: "t", Body: "    code\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.src)
			if got != tt.want {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", tt.src, got, tt.want)
			}
		})
	}
}

func TestIsSingleEmoji(t *testing.T) {
	tests := map[string]bool{
		"🚀":       true,
		"❤️":      true, // with variation selector
		"👍🏽":      true, // skin tone
		"👩‍💻":     true, // ZWJ sequence
		"👨‍👩‍👧‍👦": true,
		"🇫🇷":      true, // flag
		"1️⃣":     true, // keycap
		"🏴󠁧󠁢󠁳󠁣󠁴󠁿": true, // tag sequence
		"":        false,
		"rocket":  false,
		"🚀🚀":      false,
		"🇫":       false,
		"🇫🇷🇩🇪":    false,
		"a🚀":      false,
		"🚀 ":      false,
		"1":       false,
		"fa-book": false,
	}
	for s, want := range tests {
		if got := isSingleEmoji(s); got != want {
			t.Errorf("isSingleEmoji(%q) = %v, want %v", s, got, want)
		}
	}
}
