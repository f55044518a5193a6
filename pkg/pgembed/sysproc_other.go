//go:build unix && !linux

package pgembed

import "syscall"

// sysProcAttr returns the process attributes for initdb and postgres.
//
// Setpgid puts the server in its own process group, so Ctrl-C in a terminal
// reaches only Meridian, which then stops the server in order. There is no
// parent-death signal outside Linux, so dieWithParent has no effect. With a
// non-nil u the process runs as that user, without supplementary groups.
func sysProcAttr(u *runUser, dieWithParent bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if u != nil {
		attr.Credential = &syscall.Credential{Uid: u.uid, Gid: u.gid}
	}
	return attr
}
