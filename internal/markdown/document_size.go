package markdown

// SizeAtLeast is a lower bound of the bytes d takes as JSON, found by a
// walk over it without encoding it: the JSON syntax every node, leaf and
// mark writes, and the text they hold (unescaped). A GraphQL answer counts
// a document by it while the answer is built (graph/cost_response.go), so
// it must never be more than the encoding.
func (d *Document) SizeAtLeast() int64 {
	return int64(len(`{"object":"","data":{},"nodes":[]}`)+len(d.Object)) + nodesSize(d.Nodes)
}

func nodesSize(ns []Node) int64 {
	var n int64
	for i := range ns {
		x := &ns[i]
		// {"object":"…"} and the comma after it; the other keys only when
		// present, by their value alone.
		n += int64(len(`{"object":""},`) + len(x.Object) + len(x.Type) + len(x.Key) + len(x.Fragment))
		if x.Data != nil {
			n += int64(len(`,"data":{}`)) + x.Data.sizeAtLeast()
		}
		if x.Meta != nil {
			n += int64(len(x.Meta.ID))
		}
		for _, l := range x.Leaves {
			n += int64(len(`{"object":"leaf","text":"","marks":[]},`) + len(l.Text))
			for _, m := range l.Marks {
				n += int64(len(`{"object":"mark","type":""},`) + len(m.Type))
			}
		}
		n += nodesSize(x.Nodes) + nodesSize(x.Fragments)
	}
	return n
}

func (d *Data) sizeAtLeast() int64 {
	n := len(d.Syntax) + len(d.Alt) + len(d.Caption) + len(d.Style) + len(d.Title) + len(d.URL) + len(d.Path) + len(d.Method)
	if d.Ref != nil {
		n += len(d.Ref.URL) + len(d.Ref.Spec)
	}
	for _, s := range d.Schemas {
		n += len(s)
	}
	for _, r := range d.Records {
		for _, v := range r.Values {
			n += len(v)
		}
	}
	for _, c := range d.Definition {
		n += len(c.Title)
	}
	return int64(n)
}
