//go:build unix

package trial

import (
	"os/exec"
	"syscall"
)

// killGroup starts cmd in a process group of its own (groupAttr) and
// kills the whole group when its context ends, so a trainer's children
// (a data loader's workers) stop with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = groupAttr()
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// reap kills what is left of cmd's process group once it has exited: the
// processes a trainer started and did not wait for, which would otherwise
// go on writing into its trial folder.
func reap(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
