package gitserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// uploadPack answers a fetch. go-git's server refuses depth, so a shallow
// request is answered here: the commits within depth, their trees and
// blobs, and the commits cut off announced as shallow.
func (s *Server) uploadPack(r *http.Request, ep *transport.Endpoint, out *bytes.Buffer) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	in := bytes.NewReader(data)
	req := packp.NewUploadPackRequest()
	if err := req.UploadRequest.Decode(in); err != nil {
		return err
	}
	// What follows the request is "have" lines and "done".
	sc := pktline.NewScanner(in)
	for sc.Scan() {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\n"))
		if h, ok := bytes.CutPrefix(line, []byte("have ")); ok {
			req.Haves = append(req.Haves, plumbing.NewHash(string(h)))
		}
		if string(line) == "done" {
			break
		}
	}
	if !req.Depth.IsZero() && !s.noShallow {
		sto, err := loader{s}.Load(ep)
		if err != nil {
			return err
		}
		return shallowPack(sto, req, out)
	}
	sess, err := s.git.NewUploadPackSession(ep, nil)
	if err != nil {
		return err
	}
	resp, err := sess.UploadPack(r.Context(), req)
	if err != nil {
		return err
	}
	return resp.Encode(out)
}

func shallowPack(sto storer.Storer, req *packp.UploadPackRequest, out *bytes.Buffer) error {
	depth, ok := req.Depth.(packp.DepthCommits)
	if !ok {
		return errors.New("only a depth in commits is served")
	}
	seen := map[plumbing.Hash]bool{}
	var objects, shallows []plumbing.Hash
	add := func(h plumbing.Hash) bool {
		if seen[h] {
			return false
		}
		seen[h] = true
		objects = append(objects, h)
		return true
	}
	var addTree func(h plumbing.Hash) error
	addTree = func(h plumbing.Hash) error {
		if !add(h) {
			return nil
		}
		t, err := object.GetTree(sto, h)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			switch e.Mode {
			case filemode.Dir:
				if err := addTree(e.Hash); err != nil {
					return err
				}
			case filemode.Submodule:
			default:
				add(e.Hash)
			}
		}
		return nil
	}
	type step struct {
		hash  plumbing.Hash
		depth int
	}
	var queue []step
	for _, w := range req.Wants {
		queue = append(queue, step{w, 1})
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		if !add(st.hash) {
			continue
		}
		if tag, err := object.GetTag(sto, st.hash); err == nil {
			// An annotated tag: its target comes along at the same depth.
			queue = append(queue, step{tag.Target, st.depth})
			continue
		}
		c, err := object.GetCommit(sto, st.hash)
		if err != nil {
			return fmt.Errorf("want %s: %w", st.hash, err)
		}
		if err := addTree(c.TreeHash); err != nil {
			return err
		}
		if st.depth >= int(depth) {
			if len(c.ParentHashes) > 0 {
				shallows = append(shallows, st.hash)
			}
			continue
		}
		for _, p := range c.ParentHashes {
			queue = append(queue, step{p, st.depth + 1})
		}
	}
	var pack bytes.Buffer
	if _, err := packfile.NewEncoder(&pack, sto, false).Encode(objects, 10); err != nil {
		return err
	}
	resp := packp.NewUploadPackResponseWithPackfile(req, io.NopCloser(&pack))
	resp.Shallows = shallows
	return resp.Encode(out)
}

// receivePack answers a push. A command whose old value is not the ref's
// current one is refused as git does ("fetch first"): the branch moved
// since the client read it. go-git's server would overwrite it.
func (s *Server) receivePack(r *http.Request, ep *transport.Endpoint, out *bytes.Buffer) error {
	sto, err := loader{s}.Load(ep)
	if err != nil {
		return err
	}
	req := packp.NewReferenceUpdateRequest()
	if err := req.Decode(r.Body); err != nil {
		return err
	}
	stale := false
	for _, cmd := range req.Commands {
		cur := plumbing.ZeroHash
		if ref, err := sto.Reference(cmd.Name); err == nil {
			cur = ref.Hash()
		}
		if cmd.Old != cur {
			stale = true
		}
	}
	if stale {
		if !req.Capabilities.Supports(capability.ReportStatus) {
			return errors.New("the ref moved")
		}
		rs := packp.NewReportStatus()
		rs.UnpackStatus = "ok"
		for _, cmd := range req.Commands {
			rs.CommandStatuses = append(rs.CommandStatuses, &packp.CommandStatus{ReferenceName: cmd.Name, Status: "fetch first"})
		}
		return rs.Encode(out)
	}
	sess, err := s.git.NewReceivePackSession(ep, nil)
	if err != nil {
		return err
	}
	rs, err := sess.ReceivePack(r.Context(), req)
	if rs != nil {
		return rs.Encode(out)
	}
	return err
}
