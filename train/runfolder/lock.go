package runfolder

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A run folder is held by the process training in it: an OS lock (flock) on the folder
// itself, which the OS releases when that process ends, however it ends, and which deleting
// a file in the folder cannot release. The lock file, in the folder, names the holder for the
// message of the process it refuses; it is locked too, as zero's lock was before it was the
// folder's (an older zero in the folder is refused, and refuses), and it is the lock where the
// file system cannot lock a folder. The file's presence means nothing: a killed trainer
// leaves no stale lock behind, and a deleted one only loses the holder's name.
const lockFile = "lock"

// ErrBusy is the error of a run folder another process trains in.
var ErrBusy = errors.New("in use")

// Held is a run folder held by this process: the folder open and locked (nil where its
// file system cannot lock it), and the lock file.
type Held struct{ dir, f *os.File }

// Take takes dir for this process, creating it if needed. It fails at once, with an
// error wrapping ErrBusy that names the holder, if another process (or another run in this
// one) holds it.
func Take(dir string) (*Held, error) {
	return TakeFor(dir, "run folder %s is %w: %s trains in it; wait for it to stop or give another --run")
}

// TakeFor is Take with the refusal's message: a format of the folder, ErrBusy and
// the holder.
func TakeFor(dir, refusal string) (*Held, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, lockFile)
	refuse := func() error {
		holder, _ := os.ReadFile(path)
		who := strings.TrimSpace(string(holder))
		if who == "" {
			who = "another process"
		}
		return fmt.Errorf(refusal, dir, ErrBusy, who)
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	held, err := lockWaiting(d)
	switch {
	case err != nil:
		// A file system that cannot lock a folder (NFS emulates flock with byte-range locks,
		// which want a file open for writing): the lock file's lock alone holds it.
		d.Close()
		d = nil
	case !held:
		d.Close()
		return nil, refuse()
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err == nil {
		held, err = lockWaiting(f)
		if err != nil {
			f.Close()
			err = fmt.Errorf("locking %s: %w", path, err)
		}
	}
	if err == nil && !held {
		f.Close()
		err = refuse()
	}
	if err != nil {
		if d != nil {
			d.Close()
		}
		return nil, err
	}
	host, _ := os.Hostname()
	who := fmt.Sprintf("zero (pid %d on %s, since %s)", os.Getpid(), host, time.Now().Format("2006-01-02 15:04:05"))
	// Only a message reads it: a failed write leaves the refused process saying "another process".
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(who+"\n"), 0)
	}
	return &Held{d, f}, nil
}

// lockWaiting takes f's lock (tryLock). A watcher (Holder) holds it shared for an instant: a
// refusal is taken as final only after probeWait.
func lockWaiting(f *os.File) (bool, error) {
	held, err := tryLock(f)
	for wait := time.Duration(0); err == nil && !held && wait < probeWait; wait += probeWait / 10 {
		time.Sleep(probeWait / 10)
		held, err = tryLock(f)
	}
	return held, err
}

// probeWait is how long Take tries again before refusing the folder: far longer than a
// watcher's probe holds the lock.
const probeWait = 100 * time.Millisecond

// Holder tells whether a process trains in the run folder dir now, and who: the line its
// holder wrote in the lock file ("zero (pid N on HOST, since …)", or "another process" when
// the file is gone or empty). It changes nothing and may be called while the run trains (zero
// serve's dashboard does, every few seconds): it takes the locks shared for an instant, which
// a trainer starting at that moment waits out. A folder that does not exist has never been
// trained in. Where the OS has no file locks (lock_other.go) nobody is ever said to train.
func Holder(dir string) (holder string, training bool, err error) {
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	free, err := probeLock(d)
	d.Close()
	if err != nil {
		free = true // a folder its file system cannot lock: the lock file tells
	}
	f, err := os.Open(filepath.Join(dir, lockFile))
	switch {
	case errors.Is(err, os.ErrNotExist) && free:
		return "", false, nil
	case errors.Is(err, os.ErrNotExist):
		return "another process", true, nil
	case err != nil:
		return "", false, err
	}
	defer f.Close()
	if free {
		// The lock file alone: a process whose folder could not be locked, or an older zero.
		if free, err = probeLock(f); err != nil || free {
			return "", false, err
		}
	}
	who, _ := io.ReadAll(io.LimitReader(f, 512))
	holder = strings.TrimSpace(string(who))
	if holder == "" {
		holder = "another process"
	}
	return holder, true, nil
}

// Release releases the folder (closing the files releases the OS locks).
func (l *Held) Release() error {
	err := l.f.Close()
	if l.dir != nil {
		err = errors.Join(err, l.dir.Close())
	}
	return err
}
