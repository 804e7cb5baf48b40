"""Knowledge tools: articles through their lifecycle (draft → review → published → retired;
publishing needs a manager) and their links to incidents (only published articles may be a
resolution)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, or_, select

from ...errors import Conflict, InvalidArgument
from ...schema.itsm.knowledge import (
    ARTICLE_STATES,
    LINK_KINDS,
    VISIBILITIES,
    IncidentKnowledge,
    KnowledgeArticle,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains, one_of
from .common import (
    InOrg,
    OrgId,
    Page,
    PerPage,
    apply_updates,
    audit,
    filled,
    get_in_scope,
    listed_orgs,
    related,
    require,
    require_role,
    target_org,
)
from .incidents import IncidentNumber, incident_in_scope

SERVICE = "itsm.knowledge"
ArticleState = Literal[ARTICLE_STATES]  # type: ignore[valid-type]
Visibility = Literal[VISIBILITIES]  # type: ignore[valid-type]
Relation = Literal[LINK_KINDS]  # type: ignore[valid-type]
ArticleId = Annotated[str, Field(description="The knowledge article id, e.g. KB0000301")]
KeywordList = list[Annotated[Text, Field(description="One keyword or phrase")]]
NEXT_STATE = {"draft": "review", "review": "published", "published": "retired"}

_ARTICLES, _LINKS = KnowledgeArticle.__table__, IncidentKnowledge.__table__
SEARCHED = Filtered(
    select(_ARTICLES),
    (_ARTICLES.c.id,),
    query=or_(contains(_ARTICLES.c.title, "query"), contains(_ARTICLES.c.keywords, "query")),
    state=_ARTICLES.c.state == bindparam("state"),
    category=_ARTICLES.c.category == bindparam("category"),
    orgs=one_of(_ARTICLES.c.org_id, "orgs"),
)
LINKED = Statement.of(
    select(
        _ARTICLES.c.id.label("article_id"),
        _LINKS.c.relation,
        _ARTICLES.c.title,
        _ARTICLES.c.state,
    )
    .select_from(_LINKS)
    .join(_ARTICLES, _ARTICLES.c.id == _LINKS.c.article_id)
    .where(_LINKS.c.incident_id == bindparam("incident_id"))
    .order_by(_LINKS.c.article_id)
)


def _article(ctx: ToolContext, article_id: str, action: str = "read") -> Row:
    return get_in_scope(ctx, KnowledgeArticle, article_id, "knowledge article", "knowledge", action)


def _joined(keywords: list[str]) -> str:
    return ",".join(k.lower() for k in keywords)


def _advance(ctx: ToolContext, tool_name: str, article: Row, target: str) -> dict[str, Any]:
    """Move the article one step along its lifecycle, to ``target``, or refuse (409)."""
    previous = article["state"]
    if NEXT_STATE.get(previous) != target:
        raise Conflict(
            f"article {article['id']} is {previous}; it cannot go to {target} "
            f"(lifecycle: draft → review → published → retired)",
            error="illegal_transition",
        )
    changed = apply_updates(ctx, KnowledgeArticle, article, {"state": target}, ["state"])
    ctx.rows.change(KnowledgeArticle, article, {"updated_at": ctx.timestamp})
    audit(ctx, tool_name, "update", KnowledgeArticle, article, changed)
    return {**article, "previous_state": previous}


@tool(SERVICE, "GET", "/itsm/knowledge/get")
def get_knowledge_article(ctx: ToolContext, article_id: ArticleId) -> Any:
    """Read one knowledge article: title, body, category, keywords, state, visibility and author."""
    return _article(ctx, article_id)


@tool(SERVICE, "GET", "/itsm/knowledge/search")
def search_knowledge(
    ctx: ToolContext,
    query: Annotated[Text | None, Field(description="Text the title or the keywords contain (any case)")] = None,
    state: Annotated[ArticleState | None, Field(description="Only articles in this state")] = None,
    category: Annotated[str | None, Field(description="Only articles of this category")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """Search knowledge articles by title or keyword, optionally by state and category; in id
    order, paginated."""
    orgs = listed_orgs(ctx, "knowledge", org_id)
    return ctx.rows.page(SEARCHED, page, per_page, query=query, state=state, category=category, orgs=orgs)


@tool(SERVICE, "POST", "/itsm/knowledge/create")
def create_knowledge_article(
    ctx: ToolContext,
    title: Annotated[Text, Field(description="The article's title")],
    body: Annotated[Text, Field(description="The article's text: the symptoms and the fix")],
    category: Annotated[Text, Field(description="Its category, e.g. network, software, access")],
    keywords: Annotated[
        KeywordList | None,
        Field(description="Keywords incident short descriptions are matched against, e.g. ['vpn', 'password reset']"),
    ] = None,
    visibility: Annotated[Visibility, Field(description="Who may read it")] = "internal",
    org_id: OrgId = None,
) -> Any:
    """Write a new knowledge article, as a draft authored by the acting user, in the organization
    given (your own by default)."""
    org = target_org(ctx, org_id)
    user = require(ctx, "knowledge", "crud", org)
    article = {
        "id": ctx.rows.next_id(KnowledgeArticle),
        "org_id": org,
        "title": title,
        "body": body,
        "category": category,
        "keywords": _joined(keywords or []),
        "state": "draft",
        "visibility": visibility,
        "author_id": user["id"],
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(KnowledgeArticle, article)
    audit(ctx, "create_knowledge_article", "create", KnowledgeArticle, article, filled(article))
    return article


@tool(SERVICE, "POST", "/itsm/knowledge/update")
def update_knowledge_article(
    ctx: ToolContext,
    article_id: ArticleId,
    title: Annotated[Text | None, Field(description="New title")] = None,
    body: Annotated[Text | None, Field(description="New text")] = None,
    category: Annotated[Text | None, Field(description="New category")] = None,
    keywords: Annotated[KeywordList | None, Field(description="New keywords (they replace the old ones)")] = None,
    visibility: Annotated[Visibility | None, Field(description="New visibility")] = None,
) -> Any:
    """Change an article's content; only the fields given change (its state does not)."""
    article = _article(ctx, article_id, "crud")
    updates = {
        k: v
        for k, v in {
            "title": title,
            "body": body,
            "category": category,
            "keywords": None if keywords is None else _joined(keywords),
            "visibility": visibility,
        }.items()
        if v is not None
    }
    if not updates:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    changed = apply_updates(ctx, KnowledgeArticle, article, updates, updates)
    if changed:
        ctx.rows.change(KnowledgeArticle, article, {"updated_at": ctx.timestamp})
        audit(ctx, "update_knowledge_article", "update", KnowledgeArticle, article, changed)
    return {**article, "changed": changed}


@tool(SERVICE, "POST", "/itsm/knowledge/submit")
def submit_article_for_review(ctx: ToolContext, article_id: ArticleId) -> Any:
    """Submit a draft article for review (draft → review)."""
    return _advance(ctx, "submit_article_for_review", _article(ctx, article_id, "crud"), "review")


@tool(SERVICE, "POST", "/itsm/knowledge/publish")
def publish_article(ctx: ToolContext, article_id: ArticleId) -> Any:
    """Publish an article in review (review → published). Only a manager (or admin) may publish."""
    article = _article(ctx, article_id, "crud")
    require_role(ctx, "manager", article["org_id"])
    return _advance(ctx, "publish_article", article, "published")


@tool(SERVICE, "POST", "/itsm/knowledge/retire")
def retire_article(ctx: ToolContext, article_id: ArticleId) -> Any:
    """Retire a published article (published → retired); it is no longer suggested."""
    return _advance(ctx, "retire_article", _article(ctx, article_id, "crud"), "retired")


@tool(SERVICE, "POST", "/itsm/knowledge/link-incident")
def link_knowledge_to_incident(
    ctx: ToolContext,
    incident_number: IncidentNumber,
    article_id: ArticleId,
    relation: Annotated[
        Relation,
        Field(description="suggested (may help), applied (was tried) or resolution (solved it; published only)"),
    ],
) -> Any:
    """Link a knowledge article to an incident, or change the relation of an existing link.
    Only a published article may be linked as the resolution (409 not_published)."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    article = related(ctx, KnowledgeArticle, article_id, "knowledge article", incident["org_id"])
    require(ctx, "knowledge", "read", article["org_id"])
    if relation == "resolution" and article["state"] != "published":
        raise Conflict(
            f"article {article['id']} is {article['state']}; only a published article may be a resolution",
            error="not_published",
        )
    link = ctx.rows.get(IncidentKnowledge, (incident["id"], article["id"]))
    if link is None:
        link = {
            "incident_id": incident["id"],
            "article_id": article["id"],
            "org_id": incident["org_id"],
            "relation": relation,
        }
        ctx.rows.insert(IncidentKnowledge, link)
        audit(ctx, "link_knowledge_to_incident", "create", IncidentKnowledge, link, filled(link))
        previous = None
    elif link["relation"] == relation:
        raise Conflict(f"{article['id']} is already linked to {incident['id']} as {relation}", error="duplicate")
    else:
        previous = link["relation"]
        changed = apply_updates(ctx, IncidentKnowledge, link, {"relation": relation}, ["relation"])
        audit(ctx, "link_knowledge_to_incident", "update", IncidentKnowledge, link, changed)
    return {**link, "previous_relation": previous, "title": article["title"]}


@tool(SERVICE, "GET", "/itsm/knowledge/incident")
def list_incident_knowledge(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """List the knowledge articles linked to an incident, with their relation, title and state."""
    incident = incident_in_scope(ctx, incident_number)
    return {"incident_id": incident["id"], "articles": ctx.rows.all(LINKED, incident_id=incident["id"])}
