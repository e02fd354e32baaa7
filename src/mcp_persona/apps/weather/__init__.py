"""Weather: a weather server in the style of the popular weather MCP servers (interface partly invented).

The tool names follow the common weather MCP servers: ``get_current_weather {city}``,
``get_forecast {city, days}``, ``get_alerts {region}`` (the MCP quickstart server's alerts tool takes a
US state; here a region, province or city), ``get_air_quality {city}``, plus ``get_hourly_forecast
{city, hours}`` and ``get_historical_weather {city, date}``. Responses are shaped like WeatherAPI.com's
(``location`` with ``localtime``, ``current``, ``forecast.forecastday``, ``hourly``) and failures like
its errors: ``{"error": {"code": 1006, "message": "No matching location found for 'X'."}}`` with 1003
for a missing parameter; 1009 (a bad or contradictory value) and 1010 (no record for that date) are
invented in the same style.

The dataset is fixed: 15 cities (Shanghai, Hangzhou, Beijing, Guangzhou, Shenzhen, Chengdu, Wuhan,
Nanjing, Xi'an, Taipei, Hong Kong, Singapore, Tokyo, Seoul, London) with a daily record and the daily
air quality (US-EPA AQI from PM2.5/PM10) for 2026-03-01..2026-03-24, and a list of alerts. "Now",
"today" and "tomorrow" come from the task clock seen in each city's time zone; hourly values are
derived from the day's record by the fixed diurnal curve in ``mcp_persona.apps._geo.climate`` (the
same records back ``amap``'s and ``baidu_maps``'s weather tools). Forecasts stop at the end of the
dataset (2026-03-24) rather than inventing days. Temperatures are Celsius, wind km/h.
"""

from mcp_persona.apps.weather.tools import APP

__all__ = ["APP"]
