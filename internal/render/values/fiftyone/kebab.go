package fiftyone

import "github.com/huandu/xstrings"

// KebabCase is Helm's `kebabcase` template function: sprig's, which is
// xstrings.ToKebabCase (Helm v3 pins xstrings v1.5.0, as this module does).
// The FiftyOne chart names each delegated-operator Deployment and Job
// `kebabcase <key>`, so the provider must predict it exactly, digit quirks
// included: "gpuA100x2" becomes "gpu-a-100x2" and "l4x1" becomes "l-4x1"
// (docs/design/fiftyone.md). kebab_test.go checks it against Helm's
// own engine, so a Helm that moves to another xstrings fails a test here.
func KebabCase(s string) string { return xstrings.ToKebabCase(s) }
