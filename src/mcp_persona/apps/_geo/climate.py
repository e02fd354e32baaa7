"""The weather of one hour, derived from a day's record by a fixed diurnal curve.

A daily record holds ``temp_min``/``temp_max`` (°C), ``humidity`` (mean %), ``wind_kph`` (mean),
``wind_dir``, ``condition_day``/``condition_night`` (keys of :data:`CONDITIONS`), ``precip_mm``,
``precip_chance`` (%), ``uv_index``, ``pressure_hpa`` and ``visibility_km``. For hour ``h``:

* the curve ``f(h)`` is 0 at 05:00 and 1 at 14:00: ``(1 - cos(pi (h-5) / 9)) / 2`` from 05 to 14,
  ``(1 + cos(pi t / 15)) / 2`` with ``t = (h - 14) mod 24`` otherwise;
* temperature ``round(min + (max - min) f, 1)``; humidity ``round(mean + 12 (0.5 - f))`` in [15, 100];
  wind ``round(mean (0.8 + 0.4 f), 1)``; condition: the day's from 06:00 to 17:59, else the night's;
  rain ``round(precip_mm / 24, 1)`` in a wet hour, else 0; UV ``round(uv sin(pi (h - 6) / 12))`` by day;
* feels-like: the wind-chill formula when it is at most 10 °C with wind over 4.8 km/h,
  ``temp + 0.1 (humidity - 60)`` from 26 °C up (when humidity is over 60), else the temperature.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

# key -> (English by day, English by night, Chinese, wet)
CONDITIONS: dict[str, tuple[str, str, str, bool]] = {
    "sunny": ("Sunny", "Clear", "晴", False),
    "partly_cloudy": ("Partly cloudy", "Partly cloudy", "多云", False),
    "overcast": ("Overcast", "Overcast", "阴", False),
    "fog": ("Fog", "Fog", "雾", False),
    "haze": ("Haze", "Haze", "霾", False),
    "light_rain": ("Light rain", "Light rain", "小雨", True),
    "moderate_rain": ("Moderate rain", "Moderate rain", "中雨", True),
    "heavy_rain": ("Heavy rain", "Heavy rain", "大雨", True),
    "showers": ("Showers", "Showers", "阵雨", True),
    "thunderstorm": ("Thunderstorm", "Thunderstorm", "雷阵雨", True),
    "sleet": ("Sleet", "Sleet", "雨夹雪", True),
    "light_snow": ("Light snow", "Light snow", "小雪", True),
}


def condition_text(key: str, *, is_day: bool = True, lang: str = "en") -> str:
    en_day, en_night, zh, _ = CONDITIONS[key]
    if lang == "zh":
        return zh
    return en_day if is_day else en_night


def curve(hour: int) -> float:
    if 5 <= hour <= 14:
        return (1 - math.cos(math.pi * (hour - 5) / 9)) / 2
    t = (hour - 14) % 24
    return (1 + math.cos(math.pi * t / 15)) / 2


@dataclass(frozen=True)
class HourlyWeather:
    hour: int
    temp_c: float
    feels_like_c: float
    humidity: int
    wind_kph: float
    wind_dir: str
    condition: str  # a CONDITIONS key
    is_day: bool
    precip_mm: float
    precip_chance: int
    uv_index: int
    pressure_hpa: int
    visibility_km: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def feels_like(temp: float, wind_kph: float, humidity: int) -> float:
    if temp <= 10 and wind_kph > 4.8:
        v = wind_kph**0.16
        return round(13.12 + 0.6215 * temp - 11.37 * v + 0.3965 * temp * v, 1)
    if temp >= 26 and humidity > 60:
        return round(temp + 0.1 * (humidity - 60), 1)
    return round(temp, 1)


def hourly(day: dict[str, Any], hour: int) -> HourlyWeather:
    if not 0 <= hour <= 23:
        raise ValueError(f"hour {hour} is not in 0..23")
    f = curve(hour)
    temp = round(day["temp_min"] + (day["temp_max"] - day["temp_min"]) * f, 1)
    humidity = max(15, min(100, round(day["humidity"] + 12 * (0.5 - f))))
    wind = round(day["wind_kph"] * (0.8 + 0.4 * f), 1)
    is_day = 6 <= hour < 18
    cond = day["condition_day"] if is_day else day["condition_night"]
    wet = CONDITIONS[cond][3]
    uv = round(day["uv_index"] * math.sin(math.pi * (hour - 6) / 12)) if is_day else 0
    return HourlyWeather(
        hour=hour,
        temp_c=temp,
        feels_like_c=feels_like(temp, wind, humidity),
        humidity=humidity,
        wind_kph=wind,
        wind_dir=day["wind_dir"],
        condition=cond,
        is_day=is_day,
        precip_mm=round(day["precip_mm"] / 24, 1) if wet else 0.0,
        precip_chance=day["precip_chance"] if wet else min(day["precip_chance"], 10),
        uv_index=max(0, uv),
        pressure_hpa=day["pressure_hpa"],
        visibility_km=day["visibility_km"],
    )


def hourly_day(day: dict[str, Any]) -> list[HourlyWeather]:
    return [hourly(day, h) for h in range(24)]


def beaufort(wind_kph: float) -> int:
    """Beaufort force for a wind speed in km/h."""
    limits = [1, 6, 12, 20, 29, 39, 50, 62, 75, 89, 103, 118]
    for force, lim in enumerate(limits):
        if wind_kph < lim:
            return force
    return 12
