package emulator

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Base information: GET /v0/meta/bases/{baseId} ("Get base collaborators" in the service's
// documentation): id, name, createdTime, permissionLevel and workspaceId, plus collaborators,
// interfaces and invite links when the include parameter asks for them. They come from the
// fixture's base (collaborators, interfaces, inviteLinks); a base whose fixture gives none has none.

// FixtureCollaborator is a collaborator of a base: a user (userId) or a group (groupId). Users are
// also who a comment can mention (@[usrXXX]); name is what a mention shows as displayName.
type FixtureCollaborator struct {
	UserID          string `json:"userId,omitempty"`
	GroupID         string `json:"groupId,omitempty"`
	Email           string `json:"email,omitempty"`
	Name            string `json:"name,omitempty"`
	PermissionLevel string `json:"permissionLevel,omitempty"` // none, read, comment, edit, create, owner; default edit
	Via             string `json:"via,omitempty"`             // "base" (default) or "workspace"
	CreatedTime     string `json:"createdTime,omitempty"`     // default: the base's createdTime
	GrantedByUserID string `json:"grantedByUserId,omitempty"` // default: the emulator's user
}

// FixtureInviteLinks are a base's outstanding invite links, in the API's shape.
type FixtureInviteLinks struct {
	BaseInviteLinks      []map[string]any `json:"baseInviteLinks,omitempty"`
	WorkspaceInviteLinks []map[string]any `json:"workspaceInviteLinks,omitempty"`
}

// baseInfo is what a base knows besides its tables.
type baseInfo struct {
	createdTime   string // formatted as the API writes times
	workspaceID   string
	collaborators []FixtureCollaborator // defaults filled in
	interfaces    []map[string]any
	inviteLinks   FixtureInviteLinks
}

var permissionLevels = []string{"none", "read", "comment", "edit", "create", "owner"}

func buildBaseInfo(baseID string, fb *FixtureBase) (baseInfo, error) {
	info := baseInfo{createdTime: formatTime(fixtureEpoch), workspaceID: fb.WorkspaceID}
	if fb.CreatedTime != "" {
		ct, err := time.Parse(time.RFC3339Nano, fb.CreatedTime)
		if err != nil {
			return info, fmt.Errorf("createdTime %q is not RFC 3339", fb.CreatedTime)
		}
		info.createdTime = formatTime(ct)
	}
	if info.workspaceID == "" {
		info.workspaceID = derivedID("wsp", "workspace/"+baseID)
	}
	if !isID(info.workspaceID, "wsp") {
		return info, fmt.Errorf("workspaceId %q is not \"wsp\" + 14 letters or digits", info.workspaceID)
	}
	seen := map[string]bool{}
	for i, c := range fb.Collaborators {
		switch {
		case c.UserID != "" && c.GroupID != "":
			return info, fmt.Errorf("collaborators[%d] gives both userId and groupId", i)
		case c.UserID != "" && !isID(c.UserID, "usr"):
			return info, fmt.Errorf("collaborators[%d]: userId %q is not \"usr\" + 14 letters or digits", i, c.UserID)
		case c.GroupID != "" && !isID(c.GroupID, "ugp"):
			return info, fmt.Errorf("collaborators[%d]: groupId %q is not \"ugp\" + 14 letters or digits", i, c.GroupID)
		case c.UserID == "" && c.GroupID == "":
			return info, fmt.Errorf("collaborators[%d] has neither userId nor groupId", i)
		}
		if c.PermissionLevel == "" {
			c.PermissionLevel = "edit"
		}
		if !slices.Contains(permissionLevels, c.PermissionLevel) {
			return info, fmt.Errorf("collaborators[%d]: permissionLevel %q is not one of %s", i, c.PermissionLevel, strings.Join(permissionLevels, ", "))
		}
		if c.Via == "" {
			c.Via = "base"
		}
		if c.Via != "base" && c.Via != "workspace" {
			return info, fmt.Errorf("collaborators[%d]: via %q is neither \"base\" nor \"workspace\"", i, c.Via)
		}
		key := c.Via + "/" + c.UserID + c.GroupID
		if seen[key] {
			return info, fmt.Errorf("collaborators[%d]: %s is listed twice via the %s", i, c.UserID+c.GroupID, c.Via)
		}
		seen[key] = true
		if c.CreatedTime == "" {
			c.CreatedTime = info.createdTime
		} else if ct, err := time.Parse(time.RFC3339Nano, c.CreatedTime); err != nil {
			return info, fmt.Errorf("collaborators[%d]: createdTime %q is not RFC 3339", i, c.CreatedTime)
		} else {
			c.CreatedTime = formatTime(ct)
		}
		if c.GrantedByUserID == "" {
			c.GrantedByUserID, _ = emulatorUser["id"].(string)
		}
		info.collaborators = append(info.collaborators, c)
	}
	ids := map[string]bool{}
	for i, in := range fb.Interfaces {
		id, _ := in["id"].(string)
		name, _ := in["name"].(string)
		if !isID(id, "pbd") || name == "" {
			return info, fmt.Errorf("interfaces[%d] needs an \"id\" (\"pbd\" + 14 letters or digits) and a \"name\"", i)
		}
		if ids[id] {
			return info, fmt.Errorf("interfaces[%d]: id %s is listed twice", i, id)
		}
		ids[id] = true
		info.interfaces = append(info.interfaces, cloneMap(in))
	}
	if fb.InviteLinks != nil {
		for _, l := range append(slices.Clone(fb.InviteLinks.BaseInviteLinks), fb.InviteLinks.WorkspaceInviteLinks...) {
			if id, _ := l["id"].(string); !isID(id, "inv") {
				return info, fmt.Errorf("inviteLinks: an invite link needs an \"id\" (\"inv\" + 14 letters or digits)")
			}
		}
		for _, l := range fb.InviteLinks.BaseInviteLinks {
			info.inviteLinks.BaseInviteLinks = append(info.inviteLinks.BaseInviteLinks, cloneMap(l))
		}
		for _, l := range fb.InviteLinks.WorkspaceInviteLinks {
			info.inviteLinks.WorkspaceInviteLinks = append(info.inviteLinks.WorkspaceInviteLinks, cloneMap(l))
		}
	}
	return info, nil
}

// export writes the information back into a fixture base (exportBase).
func (info *baseInfo) export(fb *FixtureBase) {
	fb.CreatedTime, fb.WorkspaceID = info.createdTime, info.workspaceID
	fb.Collaborators = slices.Clone(info.collaborators)
	for _, in := range info.interfaces {
		fb.Interfaces = append(fb.Interfaces, cloneMap(in))
	}
	if len(info.inviteLinks.BaseInviteLinks)+len(info.inviteLinks.WorkspaceInviteLinks) > 0 {
		links := FixtureInviteLinks{}
		for _, l := range info.inviteLinks.BaseInviteLinks {
			links.BaseInviteLinks = append(links.BaseInviteLinks, cloneMap(l))
		}
		for _, l := range info.inviteLinks.WorkspaceInviteLinks {
			links.WorkspaceInviteLinks = append(links.WorkspaceInviteLinks, cloneMap(l))
		}
		fb.InviteLinks = &links
	}
}

// mergeBaseInfo adds what a fixture that adds to a loaded base says about it: more collaborators,
// interfaces and invite links (a collaborator listed twice is an error of the merged base).
func mergeBaseInfo(combined, add *FixtureBase) {
	combined.Collaborators = append(combined.Collaborators, add.Collaborators...)
	combined.Interfaces = append(combined.Interfaces, add.Interfaces...)
	if add.InviteLinks != nil {
		if combined.InviteLinks == nil {
			combined.InviteLinks = &FixtureInviteLinks{}
		}
		combined.InviteLinks.BaseInviteLinks = append(combined.InviteLinks.BaseInviteLinks, add.InviteLinks.BaseInviteLinks...)
		combined.InviteLinks.WorkspaceInviteLinks = append(combined.InviteLinks.WorkspaceInviteLinks, add.InviteLinks.WorkspaceInviteLinks...)
	}
	if add.CreatedTime != "" {
		combined.CreatedTime = add.CreatedTime
	}
	if add.WorkspaceID != "" {
		combined.WorkspaceID = add.WorkspaceID
	}
}

// user finds a user collaborator of the base (by the base or by its workspace).
func (info *baseInfo) user(id string) *FixtureCollaborator {
	for i := range info.collaborators {
		if info.collaborators[i].UserID == id {
			return &info.collaborators[i]
		}
	}
	return nil
}

func (info *baseInfo) group(id string) *FixtureCollaborator {
	for i := range info.collaborators {
		if info.collaborators[i].GroupID == id {
			return &info.collaborators[i]
		}
	}
	return nil
}

// permissionLevel is the token's level on the base: the level of its user as a collaborator when
// the fixture lists it (the higher of base and workspace), else what its scopes allow, as List
// bases answers.
func (s *Server) permissionLevel(b *base, tok *token) string {
	best := -1
	for _, c := range b.info.collaborators {
		if c.UserID == tok.userID {
			best = max(best, slices.Index(permissionLevels, c.PermissionLevel))
		}
	}
	if best >= 0 {
		return permissionLevels[best]
	}
	if tok.scopes[scopeRecordsWrite] {
		return "create"
	}
	return "read"
}

// baseInfoHandler answers GET /v0/meta/bases/{baseId}[?include=collaborators&include=inviteLinks&include=interfaces].
func (s *Server) baseInfoHandler(c *call) (reply, *apiError) {
	id := c.segments[2]
	s.mu.RLock()
	defer s.mu.RUnlock()
	b := s.bases[id]
	if b == nil || !c.tok.bases[id] {
		return reply{}, s.notFoundBase(id)
	}
	if !c.tok.scopes[scopeSchemaRead] {
		return reply{}, errForbidden()
	}
	q, _ := url.ParseQuery(c.r.URL.RawQuery)
	include := map[string]bool{}
	for _, inc := range append(q["include"], q["include[]"]...) {
		switch inc {
		case "collaborators", "inviteLinks", "interfaces", "packages":
			include[inc] = true
		default:
			return reply{}, errInvalidRequest(fmt.Sprintf("include=%q: give collaborators, inviteLinks, interfaces or packages", inc))
		}
	}
	out := map[string]any{
		"id": b.id, "name": b.name, "createdTime": b.info.createdTime,
		"permissionLevel": s.permissionLevel(b, c.tok), "workspaceId": b.info.workspaceID,
	}
	if include["collaborators"] {
		users := map[string][]any{"base": {}, "workspace": {}}
		groups := map[string][]any{"base": {}, "workspace": {}}
		for _, col := range b.info.collaborators {
			if col.UserID != "" {
				m := map[string]any{"userId": col.UserID, "email": col.Email, "permissionLevel": col.PermissionLevel,
					"createdTime": col.CreatedTime, "grantedByUserId": col.GrantedByUserID}
				users[col.Via] = append(users[col.Via], m)
				continue
			}
			m := map[string]any{"groupId": col.GroupID, "name": col.Name, "permissionLevel": col.PermissionLevel,
				"createdTime": col.CreatedTime, "grantedByUserId": col.GrantedByUserID}
			groups[col.Via] = append(groups[col.Via], m)
		}
		out["individualCollaborators"] = map[string]any{"baseCollaborators": users["base"], "workspaceCollaborators": users["workspace"]}
		out["groupCollaborators"] = map[string]any{"baseCollaborators": groups["base"], "workspaceCollaborators": groups["workspace"]}
	}
	if include["interfaces"] {
		ifs := map[string]any{}
		for _, in := range b.info.interfaces {
			m := cloneMap(in)
			for _, k := range []string{"groupCollaborators", "individualCollaborators", "inviteLinks"} {
				if _, ok := m[k]; !ok {
					m[k] = []any{}
				}
			}
			if _, ok := m["createdTime"]; !ok {
				m["createdTime"] = b.info.createdTime
			}
			ifs[m["id"].(string)] = m
		}
		out["interfaces"] = ifs
	}
	if include["inviteLinks"] {
		links := map[string]any{"baseInviteLinks": []any{}, "workspaceInviteLinks": []any{}}
		for _, l := range b.info.inviteLinks.BaseInviteLinks {
			links["baseInviteLinks"] = append(links["baseInviteLinks"].([]any), cloneMap(l))
		}
		for _, l := range b.info.inviteLinks.WorkspaceInviteLinks {
			links["workspaceInviteLinks"] = append(links["workspaceInviteLinks"].([]any), cloneMap(l))
		}
		out["inviteLinks"] = links
	}
	if include["packages"] {
		out["packageInstallations"] = []any{}
	}
	return ok(out), nil
}
