// The calls GitBook's open-source renderer (GitbookIO/gitbook,
// packages/gitbook: middleware.ts, lib/data/lookup.ts, lib/data/api.ts,
// lib/context.ts, components/SitePage/fetch.ts and SitePage.tsx,
// lib/data/pages.ts, components/DocumentView/Embed.tsx, the ~gitbook/search
// route with components/Search/useSearchResults.ts, lib/tracking.ts) makes to
// render one page of a published site, made here in its order with GitBook's
// own client, @gitbook/api 0.202.0, against Folio. Every client the renderer
// builds is `new GitBookAPI({ endpoint: GITBOOK_API_URL, authToken: apiToken
// || GITBOOK_API_TOKEN || undefined })`; the client adds /v1 to the endpoint
// itself. "base" below is the renderer's configured GITBOOK_API_TOKEN; "site"
// is the apiToken the resolution hands back (createDataFetcher().withToken).
//
//   operationId                    method path                                                     params                                          token
//   resolvePublishedContentByUrl   POST   /urls/published                                          {url, visitor: {unsignedClaims, type}, redirectOnError}   base
//   getPublishedContentSite        GET    /orgs/{org}/sites/{site}/published                       ?shareKey                                       site  (with getSpaceById, concurrently)
//   getSpaceById                   GET    /spaces/{space}                                          ?shareKey                                       site
//   getRevisionById                GET    /spaces/{space}/revisions/{revision}                     ?metadata=true (revision: lookup's, else space.revision)  site
//   (the page is found in the revision's page tree by the lookup's pathname; only a path it
//    does not know goes to the API: the two lookups below)
//   getSiteRedirectBySource        GET    /orgs/{org}/sites/{site}/redirect                        ?source=/<site-relative path> then ?source=/<path>  site
//   getPageInRevisionByPath        GET    /spaces/{space}/revisions/{revision}/path/{pagePath}     pagePath = encodeURIComponent(path)             site
//   getPageDocumentInRevisionById  GET    /spaces/{space}/revisions/{revision}/page/{page}/document ?evaluated=deterministic-only&dereferenced=reusable-contents  site
//   listRevisionPageMetaLinks      GET    /spaces/{space}/revisions/{revision}/page/{page}/meta-links                                              site
//   getEmbedByUrlInSpace           GET    /spaces/{space}/embed                                    ?url                                            site
//   searchSiteContent              POST   /orgs/{org}/sites/{site}/search                          {query, scope: {mode: default, currentSiteSpace, restrictTo: currentSiteSpace}}  site
//   trackEventsInSiteById          POST   /orgs/{org}/sites/{site}/insights/events                 {events: [page_view]}                           base (lib/tracking.ts: apiClient())
//
// The kit makes them one after another (the renderer overlaps some) and
// prints one line per call, {"<call>": {operationId, method, path, token,
// status, body, raw}}, for renderer_test.go to judge against the reference:
// the kit itself only fails when it cannot run. Until URL resolution hands
// out a site token, the later calls use the fixture's fallback token and
// seeded ids and say so (token "fallback"), so the calls that exist can
// still be checked.
import { GitBookAPI } from '@gitbook/api';

// recorder is a client whose every request's answer is kept, body bytes
// included: the client reads the body itself (and throws GitBookAPIError
// on a failure, with only the message), so the answer is cloned as it
// arrives. serviceBinding is the client's own hook for the fetch it uses.
function recorder(fixture, token) {
  const seen = [];
  const api = new GitBookAPI({
    endpoint: fixture.endpoint,
    authToken: token || undefined,
    userAgent: 'folio-clientkit-renderer',
    serviceBinding: {
      async fetch(input, init) {
        const res = await fetch(input, init);
        const url = new URL(typeof input === 'string' ? input : input.url);
        seen.push({ method: init?.method ?? 'GET', path: url.pathname + url.search, status: res.status, raw: await res.clone().text() });
        return res;
      },
    },
  });
  return { api, seen };
}

// call makes one request through a fresh client (the renderer makes one per
// call too) and prints what came back.
async function call(fixture, name, operationId, token, tokenKind, make) {
  const { api, seen } = recorder(fixture, token);
  let error = null;
  try {
    await make(api);
  } catch (err) {
    // A failure the server answered is recorded below; anything else
    // (the server unreachable, the client refusing the input) is the kit's.
    if (err?.name !== 'GitBookAPIError') error = err;
  }
  if (seen.length !== 1) {
    throw new Error(`${name}: the client made ${seen.length} requests${error ? `: ${error.message}` : ''}`);
  }
  const [{ method, path, status, raw }] = seen;
  let body = null;
  try {
    body = raw ? JSON.parse(raw) : null;
  } catch {
    // Not JSON: raw says what it was.
  }
  console.log(JSON.stringify({ [name]: { operationId, method, path, token: tokenKind, status, body, raw } }));
  return status >= 200 && status < 300 ? body : null;
}

// findPage walks a revision's page tree for the page at path, as the
// renderer's resolveSiteSpacePagePath does (documents only, by path).
function findPage(pages, path) {
  for (const page of pages ?? []) {
    if (page.type === 'document' && page.path === path) return page;
    const found = findPage(page.pages, path);
    if (found) return found;
  }
  return null;
}

const trim = (p) => (p ?? '').replace(/^\/+|\/+$/g, '');

// renderer: the page's calls, in the renderer's order.
export async function renderer(fixture, _ops, log) {
  const seeded = fixture.seeded;
  const visitor = { unsignedClaims: {}, type: 'human' };
  const resolve = (name, url) =>
    call(fixture, name, 'resolvePublishedContentByUrl', fixture.baseToken, 'base', (api) =>
      api.urls.resolvePublishedContentByUrl({ url, visitor, redirectOnError: false }),
    );

  // middleware.ts → lookupPublishedContentByUrl: the page's URL, without
  // its query (the primary alternative, the one the renderer keeps
  // whenever it resolves).
  const found = await resolve('resolve', fixture.pageURL);
  const site = found && !('redirect' in found) ? found : null;
  const token = site?.apiToken ?? fixture.fallbackToken;
  const kind = site?.apiToken ? 'site' : 'fallback';
  if (!site?.apiToken) log(`# no site token from the resolution: the later calls use the fallback token`);
  const ids = {
    organization: site?.organization ?? seeded.organization,
    site: site?.site ?? seeded.site,
    siteSpace: site?.siteSpace ?? seeded.siteSpace,
    space: site?.space ?? seeded.space,
    shareKey: site?.shareKey,
  };
  const pathname = trim(site ? site.pathname : seeded.pagePath);
  const as = (name, operationId, make) => call(fixture, name, operationId, token, kind, make);

  // lib/context.ts: fetchSiteContextByIds → the published site with its
  // structure and customizations, and fetchSpaceContextByIds → the space,
  // then its revision (the lookup's preview revision, else the space's).
  await as('site', 'getPublishedContentSite', (api) =>
    api.orgs.getPublishedContentSite(ids.organization, ids.site, { shareKey: ids.shareKey }),
  );
  const space = await as('space', 'getSpaceById', (api) => api.spaces.getSpaceById(ids.space, { shareKey: ids.shareKey }));
  const revisionId = site?.revision ?? space?.revision ?? seeded.revision;
  const revision = await as('revision', 'getRevisionById', (api) =>
    api.spaces.getRevisionById(ids.space, revisionId, { metadata: true }),
  );

  // components/SitePage/fetch.ts: the page from the revision's tree; the
  // API's page by path is the renderer's answer for a path the tree lacks
  // (and the same page whatever way it is found).
  const byPath = await as('pageByPath', 'getPageInRevisionByPath', (api) =>
    api.spaces.getPageInRevisionByPath(ids.space, revisionId, encodeURIComponent(pathname), {}),
  );
  const pageId = findPage(revision?.pages, pathname)?.id ?? byPath?.id ?? seeded.page;

  // lib/data/pages.ts and SitePage.tsx: the page's document and meta links.
  await as('document', 'getPageDocumentInRevisionById', (api) =>
    api.spaces.getPageDocumentInRevisionById(ids.space, revisionId, pageId, {
      evaluated: 'deterministic-only',
      dereferenced: 'reusable-contents',
    }),
  );
  await as('metaLinks', 'listRevisionPageMetaLinks', (api) => api.spaces.listRevisionPageMetaLinks(ids.space, revisionId, pageId));

  // A path the site does not have: the renderer resolves its URL (the
  // same site space, the path as pathname), misses it in the tree, asks
  // for a site redirect from the path relative to the site, then relative
  // to the space, then the space's page by path; all miss: 404.
  const other = await resolve('resolveUnknown', fixture.unknownURL);
  const unknown = trim(other && !('redirect' in other) ? other.pathname : fixture.unknownPath);
  const inSite = trim(site ? trim(site.basePath).slice(trim(site.siteBasePath).length) : seeded.siteSpacePath);
  const sources = [`/${inSite ? `${inSite}/` : ''}${unknown}`, `/${unknown}`];
  for (const [i, source] of sources.entries()) {
    await as(i === 0 ? 'redirectInSite' : 'redirectInSpace', 'getSiteRedirectBySource', (api) =>
      api.orgs.getSiteRedirectBySource(ids.organization, ids.site, { shareKey: ids.shareKey, source }),
    );
  }
  await as('pageByUnknownPath', 'getPageInRevisionByPath', (api) =>
    api.spaces.getPageInRevisionByPath(ids.space, revisionId, encodeURIComponent(unknown), {}),
  );

  // components/DocumentView/Embed.tsx: an embed block's URL.
  await as('embed', 'getEmbedByUrlInSpace', (api) => api.spaces.getEmbedByUrlInSpace(ids.space, { url: fixture.embedURL }));

  // The search box on a site with sections, default scope: first the
  // current site space (useSearchResults.ts; api.ts turns mode "current"
  // with restrictTo into this scope).
  await as('search', 'searchSiteContent', (api) =>
    api.orgs.searchSiteContent(
      ids.organization,
      ids.site,
      { query: fixture.query, scope: { mode: 'default', currentSiteSpace: ids.siteSpace, restrictTo: 'currentSiteSpace' } },
      {},
    ),
  );

  // lib/tracking.ts: the page view, through the proxy, with the base
  // client (apiClient() without the site token).
  await call(fixture, 'insights', 'trackEventsInSiteById', fixture.baseToken, 'base', (api) =>
    api.orgs.trackEventsInSiteById(ids.organization, ids.site, {
      events: [
        {
          type: 'page_view',
          session: {
            sessionId: crypto.randomUUID(),
            visitorId: crypto.randomUUID(),
            userAgent: 'folio-clientkit-renderer',
            language: 'en',
            cookies: {},
            referrer: null,
          },
          location: {
            url: fixture.pageURL,
            siteSection: site?.siteSection ?? seeded.siteSection,
            siteSpace: ids.siteSpace,
            siteShareKey: ids.shareKey ?? null,
            space: ids.space,
            revision: revisionId,
            page: pageId,
          },
          timestamp: new Date().toISOString(),
        },
      ],
    }),
  );
}
