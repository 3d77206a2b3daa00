package events

// Teams and their members.
var (
	TeamCreated       = define("team.created", "Team created", "title", "userIds")
	TeamUpdated       = define("team.updated", "Team updated", "fields", "title")
	TeamDeleted       = define("team.deleted", "Team deleted", "title")
	TeamMemberAdded   = define("team_member.added", "Team member added", "teamId", "userId", "role")
	TeamMemberUpdated = define("team_member.role_updated", "Team member role updated", "teamId", "userId", "role")
	TeamMemberRemoved = define("team_member.removed", "Team member removed", "teamId", "userId")
)
