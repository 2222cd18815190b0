package protocol

// VerifiedFramework is the terraform-plugin-framework version whose steps
// the direct path reproduces, as docs/design/framework.md records them. A
// test fails when go.mod requires another version: the framework's steps
// must be read again before the direct path serves it.
const VerifiedFramework = "v1.19.0"

// frameworkModule is the framework's module path.
const frameworkModule = "github.com/hashicorp/terraform-plugin-framework"
