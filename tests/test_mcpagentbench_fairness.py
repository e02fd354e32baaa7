"""MCPAgentBench's headline (outcome) rule on the review's cases: a call in the agent's own words for the same
thing passes, a wrong call fails, including on the tools the paper's rule compares by name only."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcp_persona.apps._library.compute import page_action_meant
from mcp_persona.apps._normalize import same_name
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.protocols.mcpagentbench.published import RecordedAgent
from mcp_persona.protocols.mcpagentbench.scoring import NAME_ONLY, normalize_value
from mcp_persona.runner import run_episode

MAB = get_protocol("mcpagentbench")
TASKS = {t.id: t for t in load_tasks("mcpagentbench")}
Call = tuple[str, dict[str, Any]]


def outcome(task_id: str, *turns: list[Call]) -> dict[str, Any]:
    task = TASKS[task_id]
    record = anyio.run(lambda: run_episode(task, RecordedAgent("scripted", {task.id: [list(t) for t in turns]}),
                                           protocol=MAB))
    assert record.status == "ok" and record.score is not None, record.error
    return record.score.detail


def test_free_text_forms_are_one_spelling_and_another_target_is_not() -> None:
    same = [("Seattle, WA", "Seattle"), ("Poster for the April webinar on data pipelines",
                                         "a poster for the April webinar on data pipelines"),
            ("3-year", "3 years"), ("0, 45, 0", "0,45,0"), ("(0 45 0)", "0,45,0.0"), ("charts/", "charts"),
            ("./charts", "charts"), ("https://api.example.com/", "https://api.example.com"),
            ("A daily tech news digest", "daily tech news digest")]
    for a, b in same:
        assert normalize_value(a) == normalize_value(b), (a, b)
    other = [("Seattle, WA", "Portland"), ("5 years", "3 years"), ("0, 90, 0", "0,45,0"), ("plots/", "charts"),
             ("a weekly tech news digest", "daily tech news digest"), ("click cancel", "click checkout"),
             ("Seattle Center", "Seattle"), ("/latest", "/convert"), ("0,45", "0,45,0")]
    for a, b in other:
        assert normalize_value(a) != normalize_value(b), (a, b)


def test_an_api_named_with_its_trailing_api_is_the_same_api() -> None:
    assert same_name("ExchangeRate API", "ExchangeRate") and same_name("ExchangeRate", "exchangerate api")
    assert not same_name("Frankfurter API", "ExchangeRate") and not same_name("API", "ExchangeRate")


def test_a_browser_action_is_read_as_the_pages_action_it_names() -> None:
    page = ["click checkout", "remove item"]
    assert page_action_meant("click the checkout button", page) == "click checkout"
    assert page_action_meant("Remove the item from the cart", page) == "remove item"
    assert page_action_meant("click cancel", page) is None
    assert page_action_meant("click checkout and remove item", page) is None  # two actions: not one
    login = ["type email", "type password", "click sign in"]
    assert page_action_meant("type %email% into the email field", login) == "type email"
    assert page_action_meant("type the password", login) == "type password"
    assert page_action_meant("type %email% into the password field", login) is None  # which one is meant?


POSTER = "Poster for the April webinar on data pipelines"  # the gold has "a poster ..."
CODE = ("analyze_code", {"path": "src/utils/math.py", "language": "python"})
SEMGREP = ("Semgrep_Code_SAST", {"path": "src/auth/login.py", "ruleset": "p/owasp-top-ten",
                                 "config_file": ".semgrep.yml", "output_format": "sarif"})
DEVELOPER = {"programming_languages": "python", "frameworks": "FastAPI", "development_environment": "VS Code",
             "hardware_integration": "none", "version_control": "git", "output_artifacts": "REST API"}
FILES = ("search_and_read_files", {"path": "scripts"})
SCHEMAS = ("E_commerce_analyst_MCP_get_schemas", {"schema_filter": ["orders", "customers"], "database_name": "shopdb"})
ANALYST = {"industry_focus": "fintech", "market_scope": "Europe", "analysis_methods": "SWOT",
           "data_sources": "annual reports", "output_types": "slides", "report_format": "PDF",
           "time_horizon": "3 years"}
QUOTES = ("get_realtime_market_data", {"symbols": ["MSFT", "JPM"], "source": "iex"})
CHART = {"data_dir": "data/web_traffic_march.csv", "visualize_type": "pie", "output_dir": "charts",
         "output_format": "svg"}
CART = ("stagehand_navigate", {"url": "https://shop.example.com/cart"})
LOGIN = ("stagehand_navigate", {"url": "https://shop.example.com/login"})
CUBE = ("create_object", {"object_type": "cube", "name": "crate_A", "location": [0, 0, 0], "size": [1, 1, 1]})
MODIFY = {"target_object": "crate_A", "color": "red", "rotation": "0,45,0", "scale": "2", "animate": "none"}
API = {"apiName": "ExchangeRate", "url": "https://api.exchangerate.host", "endpoint": "/latest"}
CONFIG = {"name": "news-digest", "description": "daily tech news digest", "search_engine": "duckduckgo",
          "max_results": "10", "extract_content": "true"}

# (task, what the agent does, right?) -- the right call in other words passes, a different target fails
WORDED: list[tuple[str, list[list[Call]], bool]] = [
    ("pro_parallel_01", [[CODE, ("create_design", {"design_request": POSTER})]], True),
    ("pro_parallel_01", [[CODE, ("create_design", {"design_request": POSTER.replace("Poster", "A banner")})]], False),
    ("pro_parallel_02", [[SEMGREP, ("Developer", DEVELOPER | {"output_artifacts": "a REST API"})]], True),
    ("pro_parallel_02", [[SEMGREP, ("Developer", DEVELOPER | {"output_artifacts": "GraphQL API"})]], False),
    ("pro_parallel_06", [[FILES, ("create_robot", {"robot_type": "rover", "position": "0, 0, 0"})]], True),
    ("pro_parallel_06", [[FILES, ("create_robot", {"robot_type": "rover", "position": "0, 1, 0"})]], False),
    ("pro_parallel_17", [[SCHEMAS, ("Business_Analyst", ANALYST | {"time_horizon": "3-year"})]], True),
    ("pro_parallel_17", [[SCHEMAS, ("Business_Analyst", ANALYST | {"time_horizon": "5-year"})]], False),
    ("pro_parallel_19", [[("visualize_data", CHART | {"output_dir": "charts/"}), QUOTES]], True),
    ("pro_single_19", [[("visualize_data", CHART | {"output_dir": "plots/"})]], False),
    ("pro_serial_15", [[CART], [("stagehand_act", {"action": "Click the checkout button", "variables": {}})]], True),
    ("pro_serial_15", [[CART], [("stagehand_act", {"action": "remove the item", "variables": {}})]], False),
    ("pro_serial_16", [[LOGIN], [("stagehand_act", {"action": "type %email% into the email field",
                                                    "variables": {"email": "ops@acme.com"}})]], True),
    ("pro_serial_16", [[LOGIN], [("stagehand_act", {"action": "type %email% into the email field",
                                                    "variables": {"email": "it@acme.com"}})]], False),
    ("pro_serial_18", [[CUBE], [("modify_object", MODIFY | {"rotation": "0, 45, 0"})]], True),
    ("pro_serial_18", [[CUBE], [("modify_object", MODIFY | {"rotation": "0, 90, 0"})]], False),
    ("pro_single_27", [[("make_api_request", API | {"apiName": "ExchangeRate API"})]], True),
    ("pro_single_27", [[("make_api_request", API | {"apiName": "OpenWeather API"})]], False),
    ("pro_single_29", [[("WebSearchConfig", CONFIG | {"description": "A daily tech news digest"})]], True),
    ("pro_single_29", [[("WebSearchConfig", CONFIG | {"description": "a weekly tech news digest"})]], False),
]


@pytest.mark.parametrize(("task_id", "turns", "right"), WORDED, ids=[f"{t}-{r}" for t, _, r in WORDED])
def test_the_right_call_in_other_words_passes_and_a_wrong_one_fails(task_id: str, turns: list[list[Call]],
                                                                      right: bool) -> None:
    assert outcome(task_id, *turns)["outcome_finished"] is right


FLIGHTS = ("search_flights", {"type": "one_way", "origin": "Chicago", "destination": "Seattle",
                              "departure_date": "2026-03-18", "cabin_class": "economy"})
RENTALS = ("search_rental_properties", {"location": "Austin", "property_type": "apartment"})
GUARD = ("security_guidance", {"query": "How should we store user passwords and prevent SQL injection?"})
PAPER_IMAGE = ("render_image", {"file_path": "scenes/kitchen_02.png"})
SQL = ("Connect_SQL_Server", {"connectionString": 4409})
# a wrong call of a tool the paper's rule checks by name alone: the paper passes it, the headline rule must not
NAME_ONLY_WRONG: list[tuple[str, list[Call]]] = [
    ("day_parallel_02", [FLIGHTS, ("strategy_guide", {"situation": "How to bake bread"})]),
    ("day_parallel_04", [RENTALS, ("get_posts", {"topic": "productivity", "order": "newest", "count": 5})]),
    ("day_single_27", [("dmagent_ask_rule", {"question": "How does grappling work?", "rule_category": "combat",
                                             "complexity_level": "basic", "edition": "3.5e"})]),
    ("day_single_28", [("diceRoll", {"sides": 6, "count": 1, "modifier": 0, "roll_type": "normal"})]),
    ("pro_single_04", [("generate_code", {"prompt": "a function that validates IBAN numbers", "language": "java",
                                          "output_name": "foo.txt"})]),
    ("pro_single_05", [("execute_python_code", {"code_dir": "jobs/weekly_report"})]),
    ("pro_single_08", [("create_ui", {"description": "a login page"})]),
    ("pro_single_11", [("security_guidance", {"query": "How do I configure CORS?"})]),
    ("pro_single_12", [("Tester", {"testing_types": "load testing", "testing_frameworks": "jest",
                                   "performance_metrics": "p95 latency", "test_environment": "prod",
                                   "reporting_format": "PDF", "output_artifacts": "test plan"})]),
    ("pro_single_16", [("execute_bigquery", {"query": "SELECT * FROM daily_revenue LIMIT 2",
                                             "project_id": "other"})]),
    ("pro_single_18", [("vector_search", {"query": "how long does express shipping take", "limit": 10})]),
    ("pro_parallel_10", [PAPER_IMAGE, ("search_pubmed", {"query": "GLP-1 cardiovascular", "maxResults": 50})]),
    ("pro_parallel_11", [GUARD, ("search_academic_papers", {"query": "quantum error correction", "subject": "physics",
                                                            "max_results": 20})]),
    ("pro_parallel_14", [SQL, ("search_news", {"query": "AI", "start_date": "2026-03-01", "end_date": "2026-03-10",
                                               "max_result": 10})]),
    ("pro_parallel_15", [("mongo_mcp", {"mongoUri": "mongodb://analytics.internal:27017/shop",
                                        "collection_name": "carts"}),
                         ("analyze_trends", {"topic": "matcha", "timeframe": "past_year", "region": "US",
                                             "platform": "social"})]),
    ("pro_parallel_16", [("execute_bigquery", {"query": "SELECT * FROM daily_revenue LIMIT 2",
                                               "project_id": "acme-analytics"}),
                         ("obtain_business_analysis", {"topic": "plant-based meat", "output_dir": "reports/other"})]),
]


@pytest.mark.parametrize(("task_id", "calls"), NAME_ONLY_WRONG, ids=[t for t, _ in NAME_ONLY_WRONG])
def test_a_wrong_call_of_a_name_only_tool_passes_the_papers_rule_and_fails_the_headline(
        task_id: str, calls: list[Call]) -> None:
    assert any(tool in NAME_ONLY for tool, _ in calls)
    score = outcome(task_id, calls)
    assert score["paper_finished"]  # the paper's rule, kept as published: these tools by name alone
    assert not score["outcome_finished"] and not score["finished"]


def test_peers_come_without_the_facts_the_research_step_is_asked_for() -> None:
    peers = ("octagon_companies_agent", {"seed_company": "Stripe", "limit": 2})
    alone = outcome("pro_serial_06", [peers])
    assert not alone["outcome_finished"]
    research = ("octagon_deepresearch_agent", {"companies": ["Adyen", "PayPal"], "fields": ["founded", "employees"]})
    assert outcome("pro_serial_06", [peers], [research])["outcome_finished"]


def test_time_zones_in_one_call_or_one_call_each() -> None:
    export = ("download_osm_data", {"city": "Seattle, WA", "output_path": "maps/seattle.geojson", "format": "geojson"})
    both = outcome("day_parallel_13", [export, ("get_time", {"timezone": ["Asia/Tokyo", "Europe/London"]})])
    assert both["outcome_finished"] and both["outcome_efficient"]
    each = outcome("day_parallel_13", [export, ("get_time", {"timezone": ["Asia/Tokyo"]}),
                                       ("get_time", {"timezone": ["Europe/London"]})])
    assert each["outcome_finished"]
    wrong = outcome("day_parallel_13", [export, ("get_time", {"timezone": ["Asia/Seoul", "Europe/London"]})])
    assert not wrong["outcome_finished"]
