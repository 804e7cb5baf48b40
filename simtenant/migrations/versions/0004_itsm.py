"""World itsm: IT service management.

Revision ID: 0004
Revises: 0001
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("itsm",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "organizations",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.CheckConstraint("kind IN ('company', 'provider', 'client')", name=op.f("ck_organizations_kind_enum")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_organizations")),
        sa.UniqueConstraint("name", name=op.f("uq_organizations_name")),
    )
    op.create_table(
        "permissions",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("resource", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.CheckConstraint("action IN ('read', 'crud')", name=op.f("ck_permissions_action_enum")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_permissions")),
        sa.UniqueConstraint("resource", "action", name="resource_action"),
    )
    op.create_table(
        "roles",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("description", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roles")),
    )
    op.create_table(
        "locations",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("city", sa.String(), nullable=False),
        sa.Column("country", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_locations_org_id_organizations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_locations")),
        info={"id_format": "LOC-{:03d}"},
    )
    with op.batch_alter_table("locations", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_locations_org_id"), ["org_id"], unique=False)
    op.create_table(
        "role_permissions",
        sa.Column("role_id", sa.String(), nullable=False),
        sa.Column("permission_id", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["permission_id"], ["permissions.id"], name=op.f("fk_role_permissions_permission_id_permissions")
        ),
        sa.ForeignKeyConstraint(["role_id"], ["roles.id"], name=op.f("fk_role_permissions_role_id_roles")),
        sa.PrimaryKeyConstraint("role_id", "permission_id", name=op.f("pk_role_permissions")),
    )
    op.create_table(
        "sla_definitions",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("stage", sa.String(), nullable=False),
        sa.Column("target_minutes", sa.Integer(), nullable=False),
        sa.CheckConstraint("stage IN ('response', 'resolution')", name=op.f("ck_sla_definitions_stage_enum")),
        sa.CheckConstraint("priority BETWEEN 1 AND 5", name=op.f("ck_sla_definitions_priority_range")),
        sa.CheckConstraint("target_minutes > 0", name=op.f("ck_sla_definitions_target_pos")),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_sla_definitions_org_id_organizations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sla_definitions")),
        sa.UniqueConstraint("org_id", "priority", "stage", name="one_per_priority_stage"),
    )
    with op.batch_alter_table("sla_definitions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sla_definitions_org_id"), ["org_id"], unique=False)
    op.create_table(
        "sys_users",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=True),
        sa.Column("department", sa.String(), nullable=True),
        sa.Column("location_id", sa.String(), nullable=True),
        sa.Column("manager_id", sa.String(), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("locked", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["location_id"], ["locations.id"], name=op.f("fk_sys_users_location_id_locations")),
        sa.ForeignKeyConstraint(["manager_id"], ["sys_users.id"], name=op.f("fk_sys_users_manager_id_sys_users")),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_sys_users_org_id_organizations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sys_users")),
        sa.UniqueConstraint("email", name=op.f("uq_sys_users_email")),
        info={"id_format": "USR-{:04d}"},
    )
    with op.batch_alter_table("sys_users", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sys_users_org_id"), ["org_id"], unique=False)
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("actor_id", sa.String(), nullable=False),
        sa.Column("tool", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("record_table", sa.String(), nullable=False),
        sa.Column("record_id", sa.String(), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["actor_id"], ["sys_users.id"], name=op.f("fk_audit_log_actor_id_sys_users")),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_audit_log_org_id_organizations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_audit_log_actor_id"), ["actor_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_audit_log_org_id"), ["org_id"], unique=False)
    op.create_table(
        "configuration_items",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("ci_class", sa.String(), nullable=False),
        sa.Column("serial_number", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("owner_id", sa.String(), nullable=True),
        sa.Column("location_id", sa.String(), nullable=True),
        sa.Column("cost", sa.Float(), nullable=False),
        sa.CheckConstraint(
            "ci_class IN ('laptop', 'desktop', 'server', 'virtual_machine', 'network_device', 'printer', 'mobile', 'application', 'database')",
            name=op.f("ck_configuration_items_ci_class_enum"),
        ),
        sa.CheckConstraint(
            "status IN ('in_stock', 'in_use', 'in_maintenance', 'retired')",
            name=op.f("ck_configuration_items_status_enum"),
        ),
        sa.CheckConstraint("cost >= 0", name=op.f("ck_configuration_items_cost_nonneg")),
        sa.ForeignKeyConstraint(
            ["location_id"], ["locations.id"], name=op.f("fk_configuration_items_location_id_locations")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_configuration_items_org_id_organizations")
        ),
        sa.ForeignKeyConstraint(["owner_id"], ["sys_users.id"], name=op.f("fk_configuration_items_owner_id_sys_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_configuration_items")),
        sa.UniqueConstraint("serial_number", name=op.f("uq_configuration_items_serial_number")),
        info={"id_format": "CI-{:05d}"},
    )
    with op.batch_alter_table("configuration_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_configuration_items_org_id"), ["org_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_configuration_items_owner_id"), ["owner_id"], unique=False)
    op.create_table(
        "knowledge_articles",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("category", sa.String(), nullable=False),
        sa.Column("keywords", sa.String(), nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("visibility", sa.String(), nullable=False),
        sa.Column("author_id", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "state IN ('draft', 'review', 'published', 'retired')", name=op.f("ck_knowledge_articles_state_enum")
        ),
        sa.CheckConstraint("visibility IN ('internal', 'public')", name=op.f("ck_knowledge_articles_visibility_enum")),
        sa.ForeignKeyConstraint(
            ["author_id"], ["sys_users.id"], name=op.f("fk_knowledge_articles_author_id_sys_users")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_knowledge_articles_org_id_organizations")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_articles")),
        info={"id_format": "KB{:07d}"},
    )
    with op.batch_alter_table("knowledge_articles", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_knowledge_articles_org_id"), ["org_id"], unique=False)
    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("recipient_id", sa.String(), nullable=False),
        sa.Column("channel", sa.String(), nullable=False),
        sa.Column("subject", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("record_table", sa.String(), nullable=True),
        sa.Column("record_id", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("channel IN ('email', 'sms', 'portal')", name=op.f("ck_notifications_channel_enum")),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_notifications_org_id_organizations")),
        sa.ForeignKeyConstraint(
            ["recipient_id"], ["sys_users.id"], name=op.f("fk_notifications_recipient_id_sys_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notifications")),
    )
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_notifications_org_id"), ["org_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_notifications_recipient_id"), ["recipient_id"], unique=False)
    op.create_table(
        "user_groups",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=True),
        sa.Column("manager_id", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["manager_id"], ["sys_users.id"], name=op.f("fk_user_groups_manager_id_sys_users")),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_user_groups_org_id_organizations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user_groups")),
        info={"id_format": "GRP-{:03d}"},
    )
    with op.batch_alter_table("user_groups", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_user_groups_org_id"), ["org_id"], unique=False)
    op.create_table(
        "user_roles",
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("role_id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_user_roles_org_id_organizations")),
        sa.ForeignKeyConstraint(["role_id"], ["roles.id"], name=op.f("fk_user_roles_role_id_roles")),
        sa.ForeignKeyConstraint(["user_id"], ["sys_users.id"], name=op.f("fk_user_roles_user_id_sys_users")),
        sa.PrimaryKeyConstraint("user_id", "role_id", "org_id", name=op.f("pk_user_roles")),
    )
    op.create_table(
        "catalog_items",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("category", sa.String(), nullable=False),
        sa.Column("price", sa.Float(), nullable=False),
        sa.Column("fulfillment_group_id", sa.String(), nullable=True),
        sa.Column("needs_approval", sa.Boolean(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.CheckConstraint("price >= 0", name=op.f("ck_catalog_items_price_nonneg")),
        sa.ForeignKeyConstraint(
            ["fulfillment_group_id"], ["user_groups.id"], name=op.f("fk_catalog_items_fulfillment_group_id_user_groups")
        ),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_catalog_items_org_id_organizations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_catalog_items")),
        info={"id_format": "CAT-{:03d}"},
    )
    with op.batch_alter_table("catalog_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_catalog_items_org_id"), ["org_id"], unique=False)
    op.create_table(
        "change_requests",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("short_description", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("category", sa.String(), nullable=False),
        sa.Column("risk", sa.String(), nullable=False),
        sa.Column("impact", sa.Integer(), nullable=False),
        sa.Column("cab_required", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("requested_by_id", sa.String(), nullable=False),
        sa.Column("assignment_group_id", sa.String(), nullable=True),
        sa.Column("ci_id", sa.String(), nullable=True),
        sa.Column("start_at", sa.String(), nullable=True),
        sa.Column("end_at", sa.String(), nullable=True),
        sa.Column("implementation_plan", sa.Text(), nullable=True),
        sa.Column("test_plan", sa.Text(), nullable=True),
        sa.Column("backout_plan", sa.Text(), nullable=True),
        sa.Column("close_code", sa.String(), nullable=True),
        sa.Column("close_notes", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "category IN ('standard', 'normal', 'emergency')", name=op.f("ck_change_requests_category_enum")
        ),
        sa.CheckConstraint(
            "close_code IN ('successful', 'successful_with_issues', 'unsuccessful')",
            name=op.f("ck_change_requests_close_code_enum"),
        ),
        sa.CheckConstraint("risk IN ('low', 'moderate', 'high')", name=op.f("ck_change_requests_risk_enum")),
        sa.CheckConstraint(
            "status IN ('new', 'assess', 'authorize', 'scheduled', 'implement', 'review', 'closed', 'cancelled')",
            name=op.f("ck_change_requests_status_enum"),
        ),
        sa.CheckConstraint("impact BETWEEN 1 AND 3", name=op.f("ck_change_requests_impact_range")),
        sa.ForeignKeyConstraint(
            ["assignment_group_id"], ["user_groups.id"], name=op.f("fk_change_requests_assignment_group_id_user_groups")
        ),
        sa.ForeignKeyConstraint(
            ["ci_id"], ["configuration_items.id"], name=op.f("fk_change_requests_ci_id_configuration_items")
        ),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_change_requests_org_id_organizations")),
        sa.ForeignKeyConstraint(
            ["requested_by_id"], ["sys_users.id"], name=op.f("fk_change_requests_requested_by_id_sys_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_change_requests")),
        info={"id_format": "CHG{:07d}"},
    )
    with op.batch_alter_table("change_requests", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_change_requests_org_id"), ["org_id"], unique=False)
    op.create_table(
        "ci_relationships",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("parent_id", sa.String(), nullable=False),
        sa.Column("child_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.CheckConstraint(
            "kind IN ('depends_on', 'runs_on', 'connected_to')", name=op.f("ck_ci_relationships_kind_enum")
        ),
        sa.CheckConstraint("parent_id != child_id", name=op.f("ck_ci_relationships_no_self_edge")),
        sa.ForeignKeyConstraint(
            ["child_id"], ["configuration_items.id"], name=op.f("fk_ci_relationships_child_id_configuration_items")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_ci_relationships_org_id_organizations")
        ),
        sa.ForeignKeyConstraint(
            ["parent_id"], ["configuration_items.id"], name=op.f("fk_ci_relationships_parent_id_configuration_items")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ci_relationships")),
        sa.UniqueConstraint("parent_id", "child_id", "kind", name="edge"),
    )
    with op.batch_alter_table("ci_relationships", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ci_relationships_child_id"), ["child_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_ci_relationships_parent_id"), ["parent_id"], unique=False)
    op.create_table(
        "group_members",
        sa.Column("group_id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["group_id"], ["user_groups.id"], name=op.f("fk_group_members_group_id_user_groups")),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_group_members_org_id_organizations")),
        sa.ForeignKeyConstraint(["user_id"], ["sys_users.id"], name=op.f("fk_group_members_user_id_sys_users")),
        sa.PrimaryKeyConstraint("group_id", "user_id", name=op.f("pk_group_members")),
    )
    op.create_table(
        "incident_templates",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("short_description", sa.String(), nullable=False),
        sa.Column("category", sa.String(), nullable=False),
        sa.Column("impact", sa.Integer(), nullable=False),
        sa.Column("urgency", sa.Integer(), nullable=False),
        sa.Column("assignment_group_id", sa.String(), nullable=True),
        sa.CheckConstraint(
            "category IN ('hardware', 'software', 'network', 'access', 'database', 'inquiry', 'security')",
            name=op.f("ck_incident_templates_category_enum"),
        ),
        sa.ForeignKeyConstraint(
            ["assignment_group_id"],
            ["user_groups.id"],
            name=op.f("fk_incident_templates_assignment_group_id_user_groups"),
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_incident_templates_org_id_organizations")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_incident_templates")),
        info={"id_format": "TPL-{:03d}"},
    )
    with op.batch_alter_table("incident_templates", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_incident_templates_org_id"), ["org_id"], unique=False)
    op.create_table(
        "problems",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("short_description", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("assignment_group_id", sa.String(), nullable=True),
        sa.Column("assigned_to_id", sa.String(), nullable=True),
        sa.Column("root_cause", sa.Text(), nullable=True),
        sa.Column("workaround", sa.Text(), nullable=True),
        sa.Column("opened_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('new', 'assessed', 'root_cause_analysis', 'fix_in_progress', 'resolved', 'closed')",
            name=op.f("ck_problems_status_enum"),
        ),
        sa.CheckConstraint("priority BETWEEN 1 AND 5", name=op.f("ck_problems_priority_range")),
        sa.ForeignKeyConstraint(
            ["assigned_to_id"], ["sys_users.id"], name=op.f("fk_problems_assigned_to_id_sys_users")
        ),
        sa.ForeignKeyConstraint(
            ["assignment_group_id"], ["user_groups.id"], name=op.f("fk_problems_assignment_group_id_user_groups")
        ),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_problems_org_id_organizations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_problems")),
        info={"id_format": "PRB{:07d}"},
    )
    with op.batch_alter_table("problems", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_problems_org_id"), ["org_id"], unique=False)
    op.create_table(
        "services",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("owner_group_id", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('operational', 'degraded', 'outage', 'retired')", name=op.f("ck_services_status_enum")
        ),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_services_org_id_organizations")),
        sa.ForeignKeyConstraint(
            ["owner_group_id"], ["user_groups.id"], name=op.f("fk_services_owner_group_id_user_groups")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_services")),
        info={"id_format": "SVC-{:03d}"},
    )
    with op.batch_alter_table("services", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_services_org_id"), ["org_id"], unique=False)
    op.create_table(
        "catalog_requests",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("item_id", sa.String(), nullable=False),
        sa.Column("requested_for_id", sa.String(), nullable=False),
        sa.Column("requested_by_id", sa.String(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('submitted', 'approved', 'fulfilled', 'rejected', 'cancelled')",
            name=op.f("ck_catalog_requests_status_enum"),
        ),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_catalog_requests_quantity_pos")),
        sa.ForeignKeyConstraint(
            ["item_id"], ["catalog_items.id"], name=op.f("fk_catalog_requests_item_id_catalog_items")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_catalog_requests_org_id_organizations")
        ),
        sa.ForeignKeyConstraint(
            ["requested_by_id"], ["sys_users.id"], name=op.f("fk_catalog_requests_requested_by_id_sys_users")
        ),
        sa.ForeignKeyConstraint(
            ["requested_for_id"], ["sys_users.id"], name=op.f("fk_catalog_requests_requested_for_id_sys_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_catalog_requests")),
        info={"id_format": "REQ{:07d}"},
    )
    with op.batch_alter_table("catalog_requests", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_catalog_requests_item_id"), ["item_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_catalog_requests_org_id"), ["org_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_catalog_requests_requested_for_id"), ["requested_for_id"], unique=False)
    op.create_table(
        "change_approvals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("change_id", sa.String(), nullable=False),
        sa.Column("approver_id", sa.String(), nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("comments", sa.Text(), nullable=True),
        sa.Column("decided_at", sa.String(), nullable=True),
        sa.CheckConstraint(
            "state IN ('requested', 'approved', 'rejected')", name=op.f("ck_change_approvals_state_enum")
        ),
        sa.ForeignKeyConstraint(
            ["approver_id"], ["sys_users.id"], name=op.f("fk_change_approvals_approver_id_sys_users")
        ),
        sa.ForeignKeyConstraint(
            ["change_id"], ["change_requests.id"], name=op.f("fk_change_approvals_change_id_change_requests")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_change_approvals_org_id_organizations")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_change_approvals")),
    )
    with op.batch_alter_table("change_approvals", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_change_approvals_change_id"), ["change_id"], unique=False)
    op.create_table(
        "service_offerings",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("service_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_service_offerings_org_id_organizations")
        ),
        sa.ForeignKeyConstraint(["service_id"], ["services.id"], name=op.f("fk_service_offerings_service_id_services")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_service_offerings")),
        info={"id_format": "OFR-{:03d}"},
    )
    with op.batch_alter_table("service_offerings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_service_offerings_org_id"), ["org_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_service_offerings_service_id"), ["service_id"], unique=False)
    op.create_table(
        "incidents",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("caller_id", sa.String(), nullable=False),
        sa.Column("short_description", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("category", sa.String(), nullable=False),
        sa.Column("impact", sa.Integer(), nullable=False),
        sa.Column("urgency", sa.Integer(), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("assignment_group_id", sa.String(), nullable=True),
        sa.Column("assigned_to_id", sa.String(), nullable=True),
        sa.Column("service_id", sa.String(), nullable=True),
        sa.Column("offering_id", sa.String(), nullable=True),
        sa.Column("ci_id", sa.String(), nullable=True),
        sa.Column("problem_id", sa.String(), nullable=True),
        sa.Column("change_id", sa.String(), nullable=True),
        sa.Column("parent_id", sa.String(), nullable=True),
        sa.Column("hold_reason", sa.String(), nullable=True),
        sa.Column("resolution_code", sa.String(), nullable=True),
        sa.Column("resolution_notes", sa.Text(), nullable=True),
        sa.Column("close_notes", sa.Text(), nullable=True),
        sa.Column("resolved_by_id", sa.String(), nullable=True),
        sa.Column("resolved_at", sa.String(), nullable=True),
        sa.Column("opened_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "category IN ('hardware', 'software', 'network', 'access', 'database', 'inquiry', 'security')",
            name=op.f("ck_incidents_category_enum"),
        ),
        sa.CheckConstraint(
            "hold_reason IN ('awaiting_caller', 'awaiting_change', 'awaiting_problem', 'awaiting_vendor')",
            name=op.f("ck_incidents_hold_reason_enum"),
        ),
        sa.CheckConstraint(
            "resolution_code IN ('solved_workaround', 'solved_permanently', 'not_reproducible', 'duplicate', 'user_error')",
            name=op.f("ck_incidents_resolution_code_enum"),
        ),
        sa.CheckConstraint(
            "status IN ('new', 'in_progress', 'on_hold', 'resolved', 'closed', 'cancelled')",
            name=op.f("ck_incidents_status_enum"),
        ),
        sa.CheckConstraint("impact BETWEEN 1 AND 3", name=op.f("ck_incidents_impact_range")),
        sa.CheckConstraint("priority BETWEEN 1 AND 5", name=op.f("ck_incidents_priority_range")),
        sa.CheckConstraint("urgency BETWEEN 1 AND 3", name=op.f("ck_incidents_urgency_range")),
        sa.ForeignKeyConstraint(
            ["assigned_to_id"], ["sys_users.id"], name=op.f("fk_incidents_assigned_to_id_sys_users")
        ),
        sa.ForeignKeyConstraint(
            ["assignment_group_id"], ["user_groups.id"], name=op.f("fk_incidents_assignment_group_id_user_groups")
        ),
        sa.ForeignKeyConstraint(["caller_id"], ["sys_users.id"], name=op.f("fk_incidents_caller_id_sys_users")),
        sa.ForeignKeyConstraint(
            ["change_id"], ["change_requests.id"], name=op.f("fk_incidents_change_id_change_requests")
        ),
        sa.ForeignKeyConstraint(
            ["ci_id"], ["configuration_items.id"], name=op.f("fk_incidents_ci_id_configuration_items")
        ),
        sa.ForeignKeyConstraint(
            ["offering_id"], ["service_offerings.id"], name=op.f("fk_incidents_offering_id_service_offerings")
        ),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_incidents_org_id_organizations")),
        sa.ForeignKeyConstraint(["parent_id"], ["incidents.id"], name=op.f("fk_incidents_parent_id_incidents")),
        sa.ForeignKeyConstraint(["problem_id"], ["problems.id"], name=op.f("fk_incidents_problem_id_problems")),
        sa.ForeignKeyConstraint(
            ["resolved_by_id"], ["sys_users.id"], name=op.f("fk_incidents_resolved_by_id_sys_users")
        ),
        sa.ForeignKeyConstraint(["service_id"], ["services.id"], name=op.f("fk_incidents_service_id_services")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_incidents")),
        info={"id_format": "INC{:07d}"},
    )
    with op.batch_alter_table("incidents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_incidents_assigned_to_id"), ["assigned_to_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_incidents_assignment_group_id"), ["assignment_group_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_incidents_caller_id"), ["caller_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_incidents_org_id"), ["org_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_incidents_parent_id"), ["parent_id"], unique=False)
    op.create_table(
        "incident_affected_cis",
        sa.Column("incident_id", sa.String(), nullable=False),
        sa.Column("ci_id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ci_id"], ["configuration_items.id"], name=op.f("fk_incident_affected_cis_ci_id_configuration_items")
        ),
        sa.ForeignKeyConstraint(
            ["incident_id"], ["incidents.id"], name=op.f("fk_incident_affected_cis_incident_id_incidents")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_incident_affected_cis_org_id_organizations")
        ),
        sa.PrimaryKeyConstraint("incident_id", "ci_id", name=op.f("pk_incident_affected_cis")),
    )
    op.create_table(
        "incident_knowledge",
        sa.Column("incident_id", sa.String(), nullable=False),
        sa.Column("article_id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("relation", sa.String(), nullable=False),
        sa.CheckConstraint(
            "relation IN ('suggested', 'applied', 'resolution')", name=op.f("ck_incident_knowledge_relation_enum")
        ),
        sa.ForeignKeyConstraint(
            ["article_id"], ["knowledge_articles.id"], name=op.f("fk_incident_knowledge_article_id_knowledge_articles")
        ),
        sa.ForeignKeyConstraint(
            ["incident_id"], ["incidents.id"], name=op.f("fk_incident_knowledge_incident_id_incidents")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_incident_knowledge_org_id_organizations")
        ),
        sa.PrimaryKeyConstraint("incident_id", "article_id", name=op.f("pk_incident_knowledge")),
    )
    op.create_table(
        "incident_slas",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("incident_id", sa.String(), nullable=False),
        sa.Column("sla_id", sa.String(), nullable=False),
        sa.Column("stage", sa.String(), nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("started_at", sa.String(), nullable=False),
        sa.Column("breach_at", sa.String(), nullable=False),
        sa.Column("completed_at", sa.String(), nullable=True),
        sa.Column("breached", sa.Boolean(), nullable=False),
        sa.CheckConstraint("stage IN ('response', 'resolution')", name=op.f("ck_incident_slas_stage_enum")),
        sa.CheckConstraint(
            "state IN ('in_progress', 'paused', 'completed', 'cancelled')", name=op.f("ck_incident_slas_state_enum")
        ),
        sa.ForeignKeyConstraint(["incident_id"], ["incidents.id"], name=op.f("fk_incident_slas_incident_id_incidents")),
        sa.ForeignKeyConstraint(["org_id"], ["organizations.id"], name=op.f("fk_incident_slas_org_id_organizations")),
        sa.ForeignKeyConstraint(
            ["sla_id"], ["sla_definitions.id"], name=op.f("fk_incident_slas_sla_id_sla_definitions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_incident_slas")),
    )
    with op.batch_alter_table("incident_slas", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_incident_slas_incident_id"), ["incident_id"], unique=False)
    op.create_table(
        "incident_work_notes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.Column("incident_id", sa.String(), nullable=False),
        sa.Column("author_id", sa.String(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"], ["sys_users.id"], name=op.f("fk_incident_work_notes_author_id_sys_users")
        ),
        sa.ForeignKeyConstraint(
            ["incident_id"], ["incidents.id"], name=op.f("fk_incident_work_notes_incident_id_incidents")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_incident_work_notes_org_id_organizations")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_incident_work_notes")),
    )
    with op.batch_alter_table("incident_work_notes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_incident_work_notes_incident_id"), ["incident_id"], unique=False)
    op.create_table(
        "problem_incidents",
        sa.Column("problem_id", sa.String(), nullable=False),
        sa.Column("incident_id", sa.String(), nullable=False),
        sa.Column("org_id", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["incident_id"], ["incidents.id"], name=op.f("fk_problem_incidents_incident_id_incidents")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_problem_incidents_org_id_organizations")
        ),
        sa.ForeignKeyConstraint(["problem_id"], ["problems.id"], name=op.f("fk_problem_incidents_problem_id_problems")),
        sa.PrimaryKeyConstraint("problem_id", "incident_id", name=op.f("pk_problem_incidents")),
    )
    # ### end Alembic commands ###


def downgrade() -> None:
    op.drop_table("problem_incidents")
    with op.batch_alter_table("incident_work_notes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_incident_work_notes_incident_id"))
    op.drop_table("incident_work_notes")
    with op.batch_alter_table("incident_slas", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_incident_slas_incident_id"))
    op.drop_table("incident_slas")
    op.drop_table("incident_knowledge")
    op.drop_table("incident_affected_cis")
    with op.batch_alter_table("incidents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_incidents_parent_id"))
        batch_op.drop_index(batch_op.f("ix_incidents_org_id"))
        batch_op.drop_index(batch_op.f("ix_incidents_caller_id"))
        batch_op.drop_index(batch_op.f("ix_incidents_assignment_group_id"))
        batch_op.drop_index(batch_op.f("ix_incidents_assigned_to_id"))
    op.drop_table("incidents")
    with op.batch_alter_table("service_offerings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_service_offerings_service_id"))
        batch_op.drop_index(batch_op.f("ix_service_offerings_org_id"))
    op.drop_table("service_offerings")
    with op.batch_alter_table("change_approvals", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_change_approvals_change_id"))
    op.drop_table("change_approvals")
    with op.batch_alter_table("catalog_requests", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_catalog_requests_requested_for_id"))
        batch_op.drop_index(batch_op.f("ix_catalog_requests_org_id"))
        batch_op.drop_index(batch_op.f("ix_catalog_requests_item_id"))
    op.drop_table("catalog_requests")
    with op.batch_alter_table("services", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_services_org_id"))
    op.drop_table("services")
    with op.batch_alter_table("problems", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_problems_org_id"))
    op.drop_table("problems")
    with op.batch_alter_table("incident_templates", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_incident_templates_org_id"))
    op.drop_table("incident_templates")
    op.drop_table("group_members")
    with op.batch_alter_table("ci_relationships", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ci_relationships_parent_id"))
        batch_op.drop_index(batch_op.f("ix_ci_relationships_child_id"))
    op.drop_table("ci_relationships")
    with op.batch_alter_table("change_requests", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_change_requests_org_id"))
    op.drop_table("change_requests")
    with op.batch_alter_table("catalog_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_catalog_items_org_id"))
    op.drop_table("catalog_items")
    op.drop_table("user_roles")
    with op.batch_alter_table("user_groups", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_user_groups_org_id"))
    op.drop_table("user_groups")
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_notifications_recipient_id"))
        batch_op.drop_index(batch_op.f("ix_notifications_org_id"))
    op.drop_table("notifications")
    with op.batch_alter_table("knowledge_articles", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_knowledge_articles_org_id"))
    op.drop_table("knowledge_articles")
    with op.batch_alter_table("configuration_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_configuration_items_owner_id"))
        batch_op.drop_index(batch_op.f("ix_configuration_items_org_id"))
    op.drop_table("configuration_items")
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_audit_log_org_id"))
        batch_op.drop_index(batch_op.f("ix_audit_log_actor_id"))
    op.drop_table("audit_log")
    with op.batch_alter_table("sys_users", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sys_users_org_id"))
    op.drop_table("sys_users")
    with op.batch_alter_table("sla_definitions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sla_definitions_org_id"))
    op.drop_table("sla_definitions")
    op.drop_table("role_permissions")
    with op.batch_alter_table("locations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_locations_org_id"))
    op.drop_table("locations")
    op.drop_table("roles")
    op.drop_table("permissions")
    op.drop_table("organizations")
    # ### end Alembic commands ###
