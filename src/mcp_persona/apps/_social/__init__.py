"""Code shared by the social apps (Instagram, Telegram, Discord); not an app itself.

:mod:`.script` lays scripted conversations (authentic corpus items naming who speaks)
out on the task timeline for the three context generators.
"""
