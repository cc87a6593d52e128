"""pytest plugin: run pyairtable's integration tests against the airsql emulator.

    AIRTABLE_ENDPOINT_URL  the emulator, e.g. http://127.0.0.1:8080 (pyairtable.Api's endpoint_url)
    PYAIRTABLE_LOGO        optional: a local copy of the image the attachment tests download from
                           github.com (docs/source/_static/logo.png of pyairtable), for machines
                           without internet access

Load it with `-p pyairtable_emulator` (this directory on PYTHONPATH). It changes no test: it only
gives Api the emulator's URL as its default endpoint, and answers the one github.com download
from the local copy when one is given. Uploads go to content.airtable.com over plain HTTP (the
scheme of the endpoint): set HTTP_PROXY to the emulator so that they reach it.
"""

import os

import pyairtable.api.api
import requests

_endpoint = os.environ.get("AIRTABLE_ENDPOINT_URL")
if _endpoint:
    _init = pyairtable.api.api.Api.__init__

    def _init_with_endpoint(self, api_key, *args, **kwargs):
        kwargs.setdefault("endpoint_url", _endpoint)
        _init(self, api_key, *args, **kwargs)

    pyairtable.api.api.Api.__init__ = _init_with_endpoint

_logo = os.environ.get("PYAIRTABLE_LOGO")
_LOGO_URL = "https://github.com/gtalarico/pyairtable/raw/9f243cb0935ad7112859f990434612efdaf49c67/docs/source/_static/logo.png"
if _logo:
    _send = requests.Session.send

    def _send_offline(self, request, **kwargs):
        if request.url == _LOGO_URL:
            response = requests.Response()
            response.status_code = 200
            response.url = request.url
            response.request = request
            with open(_logo, "rb") as f:
                response._content = f.read()
            return response
        return _send(self, request, **kwargs)

    requests.Session.send = _send_offline
