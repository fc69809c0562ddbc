//go:build unix && !linux

package trial

import (
	"os/exec"
	"syscall"
)

// killGroup starts cmd in a process group of its own and kills the whole
// group when its context ends, so a trainer's children (a data loader's
// workers) stop with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
