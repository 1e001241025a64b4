package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestDocsShowTheFiles: a code block under "<!-- file: PATH -->" in the
// docs or the README is PATH as it is in the repository (which the tests
// compile, run and check), so a documented example cannot go stale.
func TestDocsShowTheFiles(t *testing.T) {
	docs, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	docs = append(docs, filepath.Join("..", "README.md"))
	marker := regexp.MustCompile("(?m)^<!-- file: (\\S+) -->\n```[a-z]*\n")
	n := 0
	for _, d := range docs {
		text, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range marker.FindAllSubmatchIndex(text, -1) {
			path := string(text[m[2]:m[3]])
			body := text[m[1]:]
			end := bytes.Index(body, []byte("\n```\n"))
			if end < 0 {
				t.Errorf("%s: the block of %s is not closed", d, path)
				continue
			}
			want, err := os.ReadFile(filepath.Join("..", path))
			if err != nil {
				t.Errorf("%s shows %s: %v", d, path, err)
				continue
			}
			if got := body[:end+1]; !bytes.Equal(got, want) {
				t.Errorf("%s shows %s, which has changed since: copy it again", d, path)
			}
			n++
		}
	}
	if n < 6 {
		t.Errorf("only %d file blocks found in the docs", n)
	}
}
