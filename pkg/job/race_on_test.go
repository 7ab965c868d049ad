//go:build race

package job

// raceBuild is true in a test binary built with -race, whose memory the
// race detector multiplies several times over.
const raceBuild = true
