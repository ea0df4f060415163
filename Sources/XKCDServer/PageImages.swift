import Foundation
import Hummingbird
import XKCDKit

/// `GET /images/{n}`: the comic's image from the image cache, for the pages' `<img>`.
///
/// Only what the pages need until the API's own image route comes (issue 25: it fetches a
/// missing image once and remembers a failure); here a missing image is a 404.
struct PageImages: Sendable {
    let library: Library
    let cache: ImageCache

    func add(to router: Router<BasicRequestContext>) {
        router.get("/images/:comic") { _, context in
            let id = try library.resolve(try ComicReference(parsing: try context.parameters.require("comic")))
            guard let comic = try library.database.comic(id), let data = cache.image(comic: id, imageURL: comic.imageURL) else {
                throw APIError.notFound("the image of #\(id) is not kept")
            }
            let type = MediaType.getMediaType(forExtension: (comic.imageURL as NSString).pathExtension.lowercased())
            return Response(
                status: .ok,
                headers: [.contentType: type?.description ?? "application/octet-stream", .cacheControl: "public, max-age=86400"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
    }
}
