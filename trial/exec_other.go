//go:build !unix

package trial

import "os/exec"

// killGroup leaves cmd's cancellation as it is: the command alone is
// killed when its context ends.
func killGroup(*exec.Cmd) {}

// reap does nothing here: the command's children are not tracked.
func reap(*exec.Cmd) {}
