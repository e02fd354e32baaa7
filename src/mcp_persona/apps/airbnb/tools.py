"""The lodging tools over the fixed listings (see ``data/hierarchies/airbnb.json``)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, fail, parse_day, squash, today
from mcp_persona.apps._normalize import same_place
from mcp_persona.apps.base import AppEnv, ToolFailure
from mcp_persona.apps.paging import page

APP = JsonApp(
    "airbnb",
    title="Airbnb",
    category="information",
    personalized=False,
    description="Search short-term rentals by location, dates, guests and price; read a listing's details.",
    real_server="openbnb-org/mcp-server-airbnb",
)
PAGE_SIZE = 6
Day = Field(None, description="Date YYYY-MM-DD")
Adults = Field(1, ge=1, le=16, description="Number of adults")
Children = Field(0, ge=0, le=10, description="Number of children")
Infants = Field(0, ge=0, le=5, description="Number of infants")
Pets = Field(0, ge=0, le=5, description="Number of pets")


def _stay(env: AppEnv, checkin: str | None, checkout: str | None) -> tuple[date, date] | None:
    if checkin is None and checkout is None:
        return None
    if checkin is None or checkout is None:
        raise fail("checkin and checkout must be given together", "missing")
    a, b = parse_day(checkin, "checkin"), parse_day(checkout, "checkout")
    if b <= a:
        raise fail(f"checkout {checkout} must be after checkin {checkin}", "conflict")
    if a < today(env):
        raise fail(f"checkin {checkin} is in the past (today is {today(env)})", "conflict")
    if (b - a).days > 60:
        raise fail("stays are limited to 60 nights", "range")
    return a, b


def _fits(listing: dict[str, Any], stay: tuple[date, date] | None, guests: int, pets: int) -> bool:
    if guests > listing["max_guests"] or (pets and not listing["pets_allowed"]):
        return False
    if stay is None:
        return True
    nights = [(stay[0] + timedelta(days=i)).isoformat() for i in range((stay[1] - stay[0]).days)]
    return len(nights) >= listing["minimum_nights"] and not set(nights) & set(listing["unavailable"])


def _price(listing: dict[str, Any], stay: tuple[date, date] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"rate": f"${listing['price_per_night']} night", "currency": "USD"}
    if stay is not None:
        nights = (stay[1] - stay[0]).days
        out |= {"nights": nights, "total": nights * listing["price_per_night"] + listing["cleaning_fee"],
                "breakdown": f"{nights} nights x ${listing['price_per_night']} + ${listing['cleaning_fee']} cleaning"}
    return out


def _city_of(env: AppEnv, location: str) -> list[dict[str, Any]]:
    probe = squash(location.split(",")[0])
    hits = [lst for lst in collection(env, "listings").values()
            if probe in (squash(lst["city"]), squash(lst["neighbourhood"])) or probe == squash(lst["location"])
            or same_place(location, lst["city"], lst["location"].split(", ")[-1])]
    if not hits:
        cities = sorted({lst["location"].split(", ")[1] for lst in collection(env, "listings").values()})
        raise ToolFailure(f"No listings found for location '{location}' (covered: {', '.join(cities)})",
                          kind="not_found")
    return hits


def _guest_query(adults: int, children: int, infants: int, pets: int, stay: tuple[date, date] | None) -> str:
    """The guests (and dates) as the real server puts them in the Airbnb link it returns: infants do not
    count toward a listing's guest limit, but the booking carries them."""
    parts = [f"adults={adults}"] + [f"{k}={v}" for k, v in (("children", children), ("infants", infants),
                                                             ("pets", pets)) if v]
    if stay is not None:
        parts += [f"check_in={stay[0].isoformat()}", f"check_out={stay[1].isoformat()}"]
    return "&".join(parts)


@APP.tool()
def airbnb_search(env: AppEnv,
                  location: str = Field(min_length=1, max_length=100, description="City or neighbourhood"),
                  checkin: str | None = Day, checkout: str | None = Day, adults: int = Adults,
                  children: int = Children, infants: int = Infants, pets: int = Pets,
                  minPrice: int | None = Field(None, ge=0, description="Minimum nightly price (USD)"),
                  maxPrice: int | None = Field(None, ge=0, description="Maximum nightly price (USD)"),
                  cursor: str | None = Field(None, min_length=1, description="Cursor of the next page"),
                  ) -> dict[str, Any]:
    """Search listings that fit the guests (and stay, if dated), cheapest first, six per page."""
    if minPrice is not None and maxPrice is not None and minPrice > maxPrice:
        raise fail(f"minPrice {minPrice} is above maxPrice {maxPrice}", "conflict")
    stay = _stay(env, checkin, checkout)
    pool = [lst for lst in _city_of(env, location) if _fits(lst, stay, adults + children, pets)
            and (minPrice is None or lst["price_per_night"] >= minPrice)
            and (maxPrice is None or lst["price_per_night"] <= maxPrice)]
    pool.sort(key=lambda lst: (lst["price_per_night"], lst["id"]))
    items, _, nxt = page(pool, PAGE_SIZE, cursor)
    results = [{"id": lst["id"], "url": lst["url"], "name": lst["name"], "roomType": lst["room_type"],
                "location": lst["location"], "avgRating": lst["rating"], "reviewsCount": lst["reviews"],
                "isSuperhost": lst["superhost"], "maxGuests": lst["max_guests"], "bedrooms": lst["bedrooms"],
                "price": _price(lst, stay)} for lst in items]
    return {"searchUrl": f"https://www.airbnb.com/s/{location.replace(' ', '-')}/homes?"
                         + _guest_query(adults, children, infants, pets, stay),
            "searchResults": results, "paginationInfo": {"totalCount": len(pool), "nextCursor": nxt}}


@APP.tool()
def airbnb_listing_details(env: AppEnv, id: str = Field(min_length=1, pattern=r"^\d+$", description="Listing id"),
                           checkin: str | None = Day, checkout: str | None = Day, adults: int = Adults,
                           children: int = Children, infants: int = Infants, pets: int = Pets) -> dict[str, Any]:
    """A listing's details: capacity, rooms, amenities, house rules, host, location, and the price of a
    dated stay (with whether it is available)."""
    listing = collection(env, "listings").get(id)
    if listing is None:
        raise ToolFailure(f"Listing {id} not found", kind="not_found")
    stay = _stay(env, checkin, checkout)
    guests = adults + children
    if guests > listing["max_guests"]:
        raise fail(f"listing {id} hosts at most {listing['max_guests']} guests, asked for {guests}", "conflict")
    out = {k: listing[k] for k in ("id", "url", "name", "room_type", "location", "max_guests", "bedrooms", "beds",
                                   "bathrooms", "rating", "reviews", "superhost", "amenities", "host",
                                   "minimum_nights", "pets_allowed", "lat", "lng")}
    out |= {"price": _price(listing, stay),
            "listingUrl": f"{listing['url']}?{_guest_query(adults, children, infants, pets, stay)}"}
    if stay is not None:
        out["available"] = _fits(listing, stay, guests, pets)
    return out
