// Package yamltext writes YAML the way sigs.k8s.io/yaml does (JSON field
// names and omitempty, keys sorted), without the characters its JSON step
// loses.
//
// sigs.k8s.io/yaml encodes a value to JSON and parses that JSON with the
// YAML reader before writing YAML. encoding/json leaves DEL, the C1 controls,
// U+FFFE and U+FFFF raw in strings, and the reader refuses them ("control
// characters are not allowed"): an env value holding U+007F made the values
// of gpu_operator_values fail to encode (found by FuzzGenerateValues). NEL
// (U+0085) is a line break to YAML, so the reader folded it into a space: the
// text silently held another value. Written as JSON \u escapes first, each
// reaches the YAML writer as the character itself, and it writes it escaped
// in a double-quoted string, which every YAML reader (Helm's, kubectl's)
// reads back unchanged.
package yamltext

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// Marshal is sigs.k8s.io/yaml.Marshal without its losses.
func Marshal(v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("error marshaling into JSON: %w", err)
	}
	return FromJSON(j)
}

// FromJSON is sigs.k8s.io/yaml.JSONToYAML without its losses.
func FromJSON(j []byte) ([]byte, error) {
	return yaml.JSONToYAML(escapeUnkept(j))
}

// escapeUnkept writes the runes the YAML reader does not keep as JSON \u
// escapes. Outside its strings JSON holds only ASCII, so every rune
// replaced is inside a string.
func escapeUnkept(j []byte) []byte {
	if !bytes.ContainsFunc(j, unkeptByYAMLReader) {
		return j
	}
	var b bytes.Buffer
	b.Grow(len(j) + 16)
	for _, r := range string(j) {
		if unkeptByYAMLReader(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.Bytes()
}

// unkeptByYAMLReader: YAML 1.1's printable set is tab, line feed, carriage
// return, U+0020–U+007E, NEL (U+0085, a line break), U+00A0–U+D7FF,
// U+E000–U+FFFD and above U+FFFF. encoding/json already escapes the C0
// controls and the other line breaks (U+2028, U+2029).
func unkeptByYAMLReader(r rune) bool {
	return r >= 0x7f && r <= 0x9f || r == 0xfffe || r == 0xffff
}
